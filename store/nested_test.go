package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

func ids(as []*chain.Action) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, a.ActionID)
	}
	return out
}

// Nested actions (the steps of a newer action type) are stored with their
// parent and ancestors, hidden by the zero NestedRule on every read path a
// page takes (with and without an account, by id too), shown by Show
// except under a hidden ancestor type, and found by their parent
// (ChildActions) and by id (ActionsByID), on both databases and both write
// paths (a few rows by INSERT, many by COPY on Postgres).
func TestNestedActions(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		for _, fillers := range []int{0, 70} {
			t.Run(db.Name, func(t *testing.T) {
				ctx := context.Background()
				st := storetest.Open(t, db.URL)
				n := storetest.NestedBatch(fillers, 0)
				require.NoError(t, st.SaveBatch(ctx, n.Batch))

				page := func(f store.ActionFilter) []string {
					t.Helper()
					f.Limit = 4
					p, err := st.ListActions(ctx, f, store.BookOfValuesAndAccounts)
					require.NoError(t, err)
					return ids(p.Actions)
				}
				v1 := []string{"NftItemTransfer", "TonTransfer"}
				show := store.NestedRule{Show: true}
				for _, acc := range []string{"", n.Buyer} {
					// The default: top-level actions only, the parent among them.
					require.Equal(t, []string{storetest.PurchaseID, storetest.TransferID}, page(store.ActionFilter{Account: acc})[:2], acc)
					// A v1 client: the steps instead of the purchase.
					require.Equal(t, []string{storetest.PaymentID, storetest.ItemID, storetest.TransferID},
						page(store.ActionFilter{Account: acc, Types: v1, Nested: show})[:3], acc)
					// A client that shows purchases: their steps hidden.
					require.Equal(t, []string{storetest.PurchaseID, storetest.TransferID},
						page(store.ActionFilter{Account: acc, Nested: store.NestedRule{Show: true, HiddenUnder: []string{"JettonSwap", "NftPurchase"}}})[:2], acc)
					// LIKE's wildcards in a name are literal characters.
					require.Equal(t, []string{storetest.PaymentID, storetest.ItemID},
						page(store.ActionFilter{Account: acc, Types: v1, Nested: store.NestedRule{Show: true, HiddenUnder: []string{"Nft_urchase", "%"}}})[:2], acc)
					// By id: the rule applies (toncenter's), so a child's id alone finds nothing.
					require.Empty(t, page(store.ActionFilter{Account: acc, ActionIDs: []string{storetest.ItemID}}), acc)
					require.Equal(t, []string{storetest.ItemID}, page(store.ActionFilter{Account: acc, ActionIDs: []string{storetest.ItemID}, Nested: show}), acc)
				}

				// The columns read back.
				p, err := st.ListActions(ctx, store.ActionFilter{ActionIDs: []string{storetest.ItemID, storetest.PurchaseID}, Nested: show, Limit: 10}, store.NoBook)
				require.NoError(t, err)
				require.Len(t, p.Actions, 2)
				require.Equal(t, storetest.PurchaseID, p.Actions[0].ActionID)
				require.Empty(t, p.Actions[0].ParentActionID)
				require.Empty(t, p.Actions[0].Ancestors)
				require.Equal(t, storetest.PurchaseID, p.Actions[1].ParentActionID)
				require.Equal(t, []string{"NftPurchase"}, p.Actions[1].Ancestors)

				// Children, batched for several parents, in page order; by id, nested or not.
				kids, err := st.ChildActions(ctx, []store.ActionSpan{store.ChildrenSpanOf(&n.Purchase), store.ChildrenSpanOf(&n.Transfer)}, 1000)
				require.NoError(t, err)
				require.Equal(t, []string{storetest.ItemID, storetest.PaymentID}, ids(kids[storetest.PurchaseID]))
				require.Empty(t, kids[storetest.TransferID])
				require.Equal(t, []string{"NftPurchase"}, kids[storetest.PurchaseID][0].Ancestors)
				capped, err := st.ChildActions(ctx, []store.ActionSpan{store.ChildrenSpanOf(&n.Purchase)}, 1)
				require.NoError(t, err)
				require.Equal(t, []string{storetest.ItemID}, ids(capped[storetest.PurchaseID]))
				byID, err := st.ActionsByID(ctx, []store.ActionSpan{store.ParentSpanOf(&n.Item),
					{ID: storetest.PaymentID, StartLt: n.Payment.EndLt, EndLt: n.Payment.EndLt}, {ID: "missing", EndLt: 1 << 40}})
				require.NoError(t, err)
				require.Len(t, byID, 2)
				require.Equal(t, "NftPurchase", byID[storetest.PurchaseID].Type)
				require.Equal(t, storetest.PurchaseID, byID[storetest.PaymentID].ParentActionID)

				// A trace's and a transaction's actions: top-level only.
				tr, err := st.TraceActions(ctx, []store.TraceRef{{ID: n.Purchase.TraceID, StartLt: n.Purchase.StartLt, EndLt: n.Purchase.TraceEndLt}}, 1000)
				require.NoError(t, err)
				require.Equal(t, []string{storetest.PurchaseID}, ids(tr[n.Purchase.TraceID]))
				txa, err := st.TransactionActions(ctx, []store.TxRef{{Hash: n.Item.TxHash, StartLt: n.Item.EndLt, EndLt: n.Item.EndLt}}, 1000)
				require.NoError(t, err)
				require.Equal(t, []string{storetest.PurchaseID}, ids(txa[n.Item.TxHash]))

				// The stream's read: the same rule.
				seqIDs := func(f store.ActionFilter) []string {
					rows, err := st.ActionsAfter(ctx, f, 0, 1000)
					require.NoError(t, err)
					var out []string
					for _, r := range rows {
						if r.TraceID == n.Purchase.TraceID {
							out = append(out, r.ActionID)
						}
					}
					return out
				}
				require.Equal(t, []string{storetest.PurchaseID}, seqIDs(store.ActionFilter{}))
				require.ElementsMatch(t, []string{storetest.PurchaseID, storetest.ItemID, storetest.PaymentID}, seqIDs(store.ActionFilter{Nested: show}))
				require.ElementsMatch(t, []string{storetest.ItemID, storetest.PaymentID}, seqIDs(store.ActionFilter{Account: n.Buyer, Types: v1, Nested: show}))
			})
		}
	}
}

func TestNestedRuleShows(t *testing.T) {
	require.True(t, store.NestedRule{}.Shows(nil))
	require.False(t, store.NestedRule{}.Shows([]string{"NftPurchase"}))
	require.True(t, store.NestedRule{Show: true}.Shows([]string{"NftPurchase"}))
	require.False(t, store.NestedRule{Show: true, HiddenUnder: []string{"NftPurchase"}}.Shows([]string{"DnsPurchase", "NftPurchase"}))
	require.True(t, store.NestedRule{Show: true, HiddenUnder: []string{"NftPurchase"}}.Shows([]string{"DnsPurchase"}))
}
