package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

// The trace links' reads cap each parent apart (not the batch together),
// keep page and lt order, and leave unknown ids out. One trace of three
// transactions and three actions, the first two sharing a transaction;
// lts in the second partition span, so Postgres prunes for real.
func TestTraceLinkReads(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		const lt0 = 20_000_000_000_005
		id, other := chain.Hash{1}, chain.Hash{9}
		b := &Batch{Traces: []*chain.Trace{{ID: id, StartLt: lt0, EndLt: lt0 + 2, StartUtime: 10, EndUtime: 12,
			Complete: true, Transactions: 3}}}
		tx := make([]string, 3)
		for i := range tx {
			h := chain.Hash{byte(0x10 + i)}
			tx[i] = h.Base64()
			b.Transactions = append(b.Transactions, &chain.Transaction{Hash: h, Account: "0:" +
				"AA00000000000000000000000000000000000000000000000000000000000000", Lt: lt0 + uint64(i),
				Utime: 10 + uint32(i), OrigStatus: "active", EndStatus: "active", TraceID: id})
		}
		norm := chain.Hash{7}.Base64()
		act := func(name string, idx ...int) chain.Action {
			a := chain.Action{ActionID: name, TraceID: id.Base64(), TxHash: tx[idx[0]], Type: "TonTransfer", Status: "ok",
				Value: chain.RawJSON(`{}`), StartLt: lt0 + uint64(idx[0]), EndLt: lt0 + uint64(idx[len(idx)-1]),
				TraceEndLt: lt0 + 2, TraceExternalHashNorm: &norm}
			for _, i := range idx {
				a.Transactions = append(a.Transactions, tx[i])
				a.TxLts = append(a.TxLts, lt0+uint64(i))
			}
			return a
		}
		b.Actions = []chain.Action{act("c", 2), act("b", 0, 1), act("a", 0)}
		require.NoError(t, s.SaveBatch(ctx, b))

		traces, err := s.Traces(ctx, []string{id.Base64(), other.Base64()})
		require.NoError(t, err)
		require.Len(t, traces, 1)
		info := traces[id.Base64()]
		require.Equal(t, chain.TraceInfo{TraceID: id.Base64(), StartLt: lt0, EndLt: lt0 + 2, StartUtime: 10, EndUtime: 12,
			Complete: true, TransactionsCount: 3, ExternalHashNorm: &norm}, *info)

		ref := RefOfTrace(info)
		none := TraceRef{ID: other.Base64(), StartLt: 1, EndLt: 2}
		ids := func(as []*chain.Action) (out []string) {
			for _, a := range as {
				out = append(out, a.ActionID)
			}
			return out
		}
		for max, want := range map[int][]string{1000: {"a", "b", "c"}, 2: {"a", "b"}} {
			got, err := s.TraceActions(ctx, []TraceRef{ref, none}, max)
			require.NoError(t, err)
			require.Equal(t, want, ids(got[id.Base64()]), "max %d", max)
			require.NotContains(t, got, other.Base64())
		}
		txs, err := s.TransactionsOfTraces(ctx, []TraceRef{ref, none}, true, 2)
		require.NoError(t, err)
		require.Len(t, txs[id.Base64()], 2)
		for i, x := range txs[id.Base64()] {
			require.Equal(t, tx[i], x.Hash.Base64())
		}

		refs := []TxRef{{Hash: tx[0], StartLt: lt0, EndLt: lt0}, {Hash: tx[2], StartLt: lt0 + 2, EndLt: lt0 + 2}}
		byTx, err := s.TransactionActions(ctx, refs, 1000)
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b"}, ids(byTx[tx[0]]))
		require.Equal(t, []string{"c"}, ids(byTx[tx[2]]))
		require.Nil(t, byTx[tx[0]][0].Accounts, "accounts only when asked, as a page")
		byTx, err = s.TransactionActions(ctx, refs, 1)
		require.NoError(t, err)
		require.Equal(t, []string{"a"}, ids(byTx[tx[0]]))
		require.Equal(t, []string{"c"}, ids(byTx[tx[2]]))
	})
}
