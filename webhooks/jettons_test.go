package webhooks_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tokens"
	"github.com/tonql/tonql/webhooks"
)

// The fee-replay block's jetton wallets, known to the registry before the
// block is stored (the rows its own import with the registry on makes): a
// hook watching some wallets' owners (not the wallets) and choosing
// transactions and jettons_change gets each change of those owners'
// wallets at the second place after its transaction, and none of their
// transactions (those are the wallets'); a hook watching the wallets
// themselves gets each of their transactions and then its change, in
// order, exactly once after dedup, through a receiver that fails every
// third request.
func TestJettonsHook(t *testing.T) {
	files := []string{testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st, _, rc, svc := newRig(t, db.URL)
			// The registry reads the block's states after it (the fee
			// replay's) before the block is stored, as if an earlier batch
			// had brought them.
			parsed, err := ingest.ParseFile(files[0])
			require.NoError(t, err)
			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Config: parsed.Config})) // its get methods' config and libraries
			stats, err := tokens.ForStore(st, nil).Update(ctx, parsed.After, nil)
			require.NoError(t, err)
			require.Positive(t, stats.JettonWallets)
			registry, err := st.JettonWallets(ctx, store.JettonWalletFilter{TokenPage: store.TokenPage{Limit: 100_000}})
			require.NoError(t, err)
			var all []string
			ownerOf := map[string]string{}
			for _, w := range registry {
				all = append(all, w.Address)
				ownerOf[w.Address] = w.Owner
			}
			var inBlock []string
			for _, tx := range parsed.Transactions {
				inBlock = append(inBlock, tx.Account)
			}
			var active []string
			for _, a := range all {
				if slices.Contains(inBlock, a) {
					active = append(active, a)
				}
			}
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

			importFiles(t, st, files)
			seqsOf := func(accounts []string) []uint64 {
				var out []uint64
				require.NoError(t, st.DB().NewRaw(`SELECT seq FROM transactions WHERE seq > ? AND account IN (?) ORDER BY seq`,
					int64(start), bun.In(accounts)).Scan(ctx, &out))
				require.NotEmpty(t, out)
				return out
			}
			// The owners' own transactions come as transactions; their
			// wallets' only as changes.
			var ownersTxs []uint64
			require.NoError(t, st.DB().NewRaw(`SELECT seq FROM transactions WHERE seq > ? AND account IN (?) ORDER BY seq`,
				int64(start), bun.In(owners)).Scan(ctx, &ownersTxs))
			wantOwner := append([]uint64(nil), ownersTxs...)
			for _, s := range seqsOf(active[len(active)/2:]) {
				wantOwner = append(wantOwner, s+store.TxSlotJettons)
			}
			slices.Sort(wantOwner)
			var wantWallet []uint64
			for _, s := range seqsOf(wallets) {
				wantWallet = append(wantWallet, s, s+store.TxSlotJettons)
			}
			got, repeats := awaitHook(t, 3*time.Minute, svc, rc, byOwner.Webhook.ID, len(wantOwner))
			require.Equal(t, wantOwner, got, "the owners' transactions and their wallets' changes, in order, once after dedup")
			gotWallet, _ := awaitHook(t, 3*time.Minute, svc, rc, byWallet.Webhook.ID, len(wantWallet))
			require.Equal(t, wantWallet, gotWallet, "each wallet transaction, then its change")
			require.Empty(t, rc.bad, "every delivery was signed")
			t.Logf("%s: %d owner events (%d own transactions), %d wallet events, %d repeats", db.Name, len(wantOwner), len(ownersTxs), len(wantWallet), repeats)
		})
	}
}
