package tokens_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/store"
)

// TestMasterContentIsTheContracts: tsTON's registry row holds the content
// cell get_jetton_data answers on its state after the block, and that
// content is handed to the metadata worker.
func TestMasterContentIsTheContracts(t *testing.T) {
	p, err := ingest.ParseFile(testenv.Fixture(t, replayFile))
	require.NoError(t, err)
	var state *chain.AccountState
	for i := range p.After {
		if p.After[i].Address == tsTON {
			state = &p.After[i]
		}
	}
	require.NotNil(t, state)
	run := getmethod.New(fees.New(fees.NewMemorySource(p.Config), nil, fees.Options{}))
	res, err := run.RunState(context.Background(), state, getmethod.Method{Name: "get_jetton_data"}, tlb.VmStack{})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode)
	content, ok := getmethod.Cell(res.Stack.PeekBottom(3))
	require.True(t, ok)
	contentHash, err := content.Hash256()
	require.NoError(t, err)
	supply, _ := getmethod.Int(res.Stack.PeekBottom(0))

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importReplay(t, st)
			masters, err := st.JettonMasters(ctx, store.JettonMasterFilter{Addresses: []string{tsTON}, TokenPage: store.TokenPage{Limit: 10}})
			require.NoError(t, err)
			require.Len(t, masters, 1)
			m := masters[0]
			require.Equal(t, supply.String(), m.TotalSupply)
			require.Equal(t, state.LastTxLt, m.LastTxLt)
			root, err := chain.DecodeRoot(m.Content)
			require.NoError(t, err)
			h, err := chain.CellHash(root)
			require.NoError(t, err)
			require.Equal(t, chain.Hash(contentHash), h)

			var shown map[string]string
			require.NoError(t, json.Unmarshal(m.ContentJSON, &shown))
			parsed, err := metadata.ParseCell(content)
			require.NoError(t, err)
			require.Equal(t, chain.MetadataSemichain, parsed.Layout)
			require.Equal(t, parsed.URI, shown["uri"])
			for k, v := range parsed.Attrs {
				require.Equal(t, v, shown[k], k)
			}

			md, err := st.TokenMetadata(ctx, []string{tsTON})
			require.NoError(t, err)
			require.Contains(t, md, tsTON, "the content is handed to the metadata worker")
			require.Equal(t, chain.TokenJettonMaster, md[tsTON].Kind)
			require.Equal(t, h, md[tsTON].ContentHash)
		})
	}
}

// walletRoles are, per action type, the fields naming a jetton wallet,
// its owner and its master (when the action says it): whatever the
// action's outcome, a wallet's owner and master never change.
var walletRoles = map[string][][3]string{
	"JettonTransfer":  {{"sender_wallet", "sender", "jetton_master"}, {"recipient_wallet", "recipient", "jetton_master"}},
	"JettonBurn":      {{"jetton_wallet", "owner", "jetton_master"}},
	"JettonMint":      {{"recipient_wallet", "recipient", "jetton_master"}},
	"JettonSwap":      {{"sender_wallet", "sender", "jetton_master_in"}, {"recipient_wallet", "recipient", "jetton_master_out"}},
	"StakeDeposit":    {{"tokens_wallet", "stake_holder", "asset"}},
	"StakeWithdrawal": {{"source_wallet", "stake_holder", "asset"}},
}

// TestOwnersMatchTransfers: the jetton wallets the block's actions went
// through are in the registry with the owners and masters the actions
// name, and the NFT it transferred with its new owner and collection.
func TestOwnersMatchTransfers(t *testing.T) {
	p, err := ingest.ParseFile(testenv.Fixture(t, replayFile))
	require.NoError(t, err)
	b, _, err := ingest.New(nil).Batch(context.Background(), p)
	require.NoError(t, err)
	norm := func(s string) string {
		if s == "" {
			return ""
		}
		r, err := chain.NormalizeAddress(s)
		require.NoError(t, err)
		return r
	}
	type want struct{ owner, master string }
	wallets, items := map[string]want{}, map[string]want{}
	for _, a := range b.Actions {
		var v map[string]any
		if json.Unmarshal(a.Value, &v) != nil {
			continue
		}
		str := func(k string) string { s, _ := v[k].(string); return norm(s) }
		for _, r := range walletRoles[a.Type] {
			if w, o := str(r[0]), str(r[1]); w != "" && o != "" {
				wallets[w] = want{o, str(r[2])}
			}
		}
		if a.Type == "NftItemTransfer" && a.Status == chain.StatusOK {
			items[str("nft")] = want{str("recipient"), str("collection")}
		}
	}
	require.NotEmpty(t, wallets)
	require.NotEmpty(t, items)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importReplay(t, st)
			rows, err := st.JettonWallets(ctx, store.JettonWalletFilter{TokenPage: store.TokenPage{Limit: 1000}})
			require.NoError(t, err)
			checked := 0
			for _, w := range rows {
				x, ok := wallets[w.Address]
				if !ok {
					continue
				}
				checked++
				require.Equal(t, x.owner, w.Owner, w.Address)
				if x.master != "" {
					require.Equal(t, x.master, w.Jetton, w.Address)
				}
			}
			require.GreaterOrEqual(t, checked, 5, "the actions' wallets are registered")
			t.Logf("%d of %d registered wallets checked against the block's actions", checked, len(rows))
			for addr, x := range items {
				got, err := st.NftItems(ctx, store.NftItemFilter{Addresses: []string{addr}, TokenPage: store.TokenPage{Limit: 1}})
				require.NoError(t, err)
				require.Len(t, got, 1, addr)
				require.Equal(t, x.owner, got[0].Owner)
				require.Equal(t, x.master, got[0].Collection)
				require.NotEmpty(t, got[0].Content, "the item's full content, from its collection")
			}
		})
	}
}

// TestNeverOlderThanTheNewestTransaction: a row read at an older
// transaction never replaces a newer one, and an account that had a
// transaction after its row's state shows its balance and owner as
// unknown until a newer state is read.
func TestNeverOlderThanTheNewestTransaction(t *testing.T) {
	const (
		wallet = "0:1111111111111111111111111111111111111111111111111111111111111111"
		item   = "0:2222222222222222222222222222222222222222222222222222222222222222"
		owner  = "0:3333333333333333333333333333333333333333333333333333333333333333"
		master = "0:4444444444444444444444444444444444444444444444444444444444444444"
	)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			save := func(lt uint64, balance string) {
				require.NoError(t, st.SaveTokens(ctx, &chain.TokenRecords{
					JettonWallets: []chain.JettonWallet{{Address: wallet, Owner: owner, Jetton: master, Balance: balance, LastTxLt: lt}},
					NftItems:      []chain.NftItem{{Address: item, Index: "7", Owner: owner, OwnerKnown: true, LastTxLt: lt}},
				}))
			}
			read := func() (chain.JettonWallet, chain.NftItem) {
				w, err := st.JettonWallets(ctx, store.JettonWalletFilter{Addresses: []string{wallet}, TokenPage: store.TokenPage{Limit: 1}})
				require.NoError(t, err)
				it, err := st.NftItems(ctx, store.NftItemFilter{Addresses: []string{item}, TokenPage: store.TokenPage{Limit: 1}})
				require.NoError(t, err)
				require.Len(t, w, 1)
				require.Len(t, it, 1)
				return w[0], it[0]
			}
			save(200, "5000")
			save(100, "1") // older: ignored
			w, it := read()
			require.Equal(t, "5000", w.Balance)
			require.Equal(t, uint64(200), w.LastTxLt)
			require.Equal(t, owner, it.Owner)

			require.NoError(t, st.MarkTokensBehind(ctx, map[string]uint64{wallet: 300, item: 300}))
			w, it = read()
			require.Equal(t, "", w.Balance, "unknown, not the older value")
			require.Equal(t, uint64(300), w.LastTxLt)
			require.False(t, it.OwnerKnown)
			require.Equal(t, owner, w.Owner, "a wallet's owner never changes")

			save(250, "7") // still older than the newest transaction
			w, _ = read()
			require.Equal(t, "", w.Balance)
			save(300, "0")
			w, it = read()
			require.Equal(t, "0", w.Balance)
			require.True(t, it.OwnerKnown)
		})
	}
}
