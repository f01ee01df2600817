package webhooks_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tokens"
	"github.com/tonql/tonql/webhooks"
)

// The fee-replay block imported with the token registry on into an empty
// store while hooks wait: the registry learns the block's jetton wallets
// from the same import and each state it stores is a jettons_change. A
// hook watching some wallets' owners (not the wallets) and choosing
// transactions and jettons_change gets the owners' transactions and their
// wallets' changes, none of the wallets' transactions; a hook watching the
// wallets themselves gets each of their transactions and their changes;
// both in order, exactly once after dedup, through a receiver that fails
// every third request.
func TestJettonsHook(t *testing.T) {
	files := []string{testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st, _, rc, svc := newRig(t, db.URL)
			// Which wallets the block has: the registry's reader on the
			// block's states after it (the fee replay's), nothing stored
			// but the config its get methods run on.
			parsed, err := ingest.ParseFile(files[0])
			require.NoError(t, err)
			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Config: parsed.Config}))
			recs, _, err := tokens.NewReader(getmethod.New(fees.New(st, nil, fees.Options{}))).Read(ctx, parsed.After,
				func([]string) map[string]string { return nil })
			require.NoError(t, err)
			registry := recs.JettonWallets
			ownerOf := map[string]string{}
			var active []string
			for _, w := range registry {
				ownerOf[w.Address] = w.Owner
				if slices.ContainsFunc(parsed.Transactions, func(tx *chain.Transaction) bool { return tx.Account == w.Address }) {
					active = append(active, w.Address)
				}
			}
			slices.Sort(active)
			require.GreaterOrEqual(t, len(active), 4)
			wallets := active[:len(active)/2]
			var owners []string
			for _, w := range active[len(active)/2:] {
				owners = append(owners, ownerOf[w])
			}

			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			byOwner := rc.create(svc, "/owners", owners, webhooks.EventTransactions, webhooks.EventJettons)
			byWallet := rc.create(svc, "/wallets", wallets, webhooks.EventTransactions, webhooks.EventJettons)
			rc.failEveryThird()

			im := ingest.New(st)
			im.Tokens = tokens.ForStore(st, nil).Hook
			require.NoError(t, im.ImportFiles(ctx, files, func(p string, _ ingest.Stats, err error) { require.NoError(t, err, p) }))
			seqs := func(query string, accounts []string) []uint64 {
				var out []uint64
				require.NoError(t, st.DB().NewRaw(query, int64(start), bun.In(accounts)).Scan(ctx, &out))
				return out
			}
			const txsOf = `SELECT seq FROM transactions WHERE seq > ? AND account IN (?) ORDER BY seq`
			// A change is told after the registry's commit, so after every
			// transaction of its batch.
			changesOf := func(wallets []string) []uint64 {
				out := seqs(`SELECT seq FROM jetton_changes WHERE seq > ? AND address IN (?) ORDER BY seq`, wallets)
				require.Len(t, out, len(wallets), "one change per wallet: its state after the block")
				return out
			}
			ownersTxs := seqs(txsOf, owners)
			wantOwner := append(slices.Clone(ownersTxs), changesOf(active[len(active)/2:])...)
			slices.Sort(wantOwner)
			walletTxs := seqs(txsOf, wallets)
			require.NotEmpty(t, walletTxs)
			wantWallet := append(slices.Clone(walletTxs), changesOf(wallets)...)
			slices.Sort(wantWallet)
			got, repeats := awaitHook(t, 3*time.Minute, svc, rc, byOwner.Webhook.ID, len(wantOwner))
			require.Equal(t, wantOwner, got, "the owners' transactions and their wallets' changes, in order, once after dedup")
			gotWallet, _ := awaitHook(t, 3*time.Minute, svc, rc, byWallet.Webhook.ID, len(wantWallet))
			require.Equal(t, wantWallet, gotWallet, "each wallet transaction and its change")
			require.Empty(t, rc.bad, "every delivery was signed")
			t.Logf("%s: %d owner events (%d own transactions), %d wallet events, %d repeats", db.Name, len(wantOwner), len(ownersTxs), len(wantWallet), repeats)
		})
	}
}
