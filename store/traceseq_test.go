package store_test

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// A trace takes its place in the stream in the commit that stores it
// complete, after that commit's transactions: a mainnet trace whose first
// transactions arrive in one batch (stored pending, no place) and the rest
// in a later one gets its place then; TracesAfter reads it with all its
// transactions, by an account of it or its external hash; saving the same
// batch again takes no number.
func TestTraceSeqs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, files)
	var txs []*chain.Transaction
	for _, f := range files {
		p, err := ingest.ParseFile(f)
		require.NoError(t, err)
		if len(p.Transactions) >= 4 {
			txs = p.Transactions
			break
		}
	}
	require.NotEmpty(t, txs, "a fixture trace of 4 transactions or more")
	sort.Slice(txs, func(i, j int) bool { return txs[i].Lt < txs[j].Lt })
	half := len(txs) / 2

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			ctx := context.Background()
			asm := chain.NewAssembler()
			save := func(part []*chain.Transaction) (*store.Batch, []*chain.Trace) {
				traces := asm.Add(part)
				b := &store.Batch{Transactions: part, Traces: traces}
				require.NoError(t, st.SaveBatch(ctx, b))
				return b, traces
			}

			_, first := save(txs[:half])
			require.NotEmpty(t, first)
			for _, tr := range first {
				require.False(t, tr.Complete, "the first half leaves its trace pending")
			}
			got, err := st.TracesAfter(ctx, nil, nil, 0, 100)
			require.NoError(t, err)
			require.Empty(t, got, "a pending trace has no place")
			before, err := st.LastActionSeq(ctx)
			require.NoError(t, err)

			second, traces := save(txs[half:])
			var done *chain.Trace
			for _, tr := range traces {
				if tr.Complete {
					done = tr
				}
			}
			require.NotNil(t, done, "the second half completes it")
			head, err := st.LastActionSeq(ctx)
			require.NoError(t, err)

			got, err = st.TracesAfter(ctx, nil, nil, 0, 100)
			require.NoError(t, err)
			require.Len(t, got, 1)
			tr := got[0]
			require.Equal(t, done.ID.Base64(), tr.ID)
			require.True(t, tr.Complete)
			require.Equal(t, head, tr.Seq, "the trace's number is its commit's last")
			require.Greater(t, tr.Seq, before)
			require.Len(t, tr.Transactions, len(txs), "every transaction of it, both batches'")
			var accounts []string
			for i, x := range tr.Transactions {
				require.Equal(t, txs[i].Hash, x.Hash, "by lt")
				accounts = append(accounts, x.Account)
			}
			// Its transactions' places are below its own.
			seqs, err := st.TransactionsAfter(ctx, nil, before, 100)
			require.NoError(t, err)
			require.Len(t, seqs, len(txs)-half)
			for _, s := range seqs {
				require.Less(t, s.Seq, tr.Seq)
			}

			// By an account of it, by its external hash; not by others.
			for _, acc := range accounts {
				got, err = st.TracesAfter(ctx, []string{acc}, nil, 0, 100)
				require.NoError(t, err)
				require.Len(t, got, 1, acc)
			}
			require.NotEmpty(t, tr.ExternalHashNorm, "started by an external message")
			require.Equal(t, txs[0].InMsg.HashNorm.Base64(), tr.ExternalHashNorm)
			got, err = st.TracesAfter(ctx, nil, []string{tr.ExternalHashNorm}, 0, 100)
			require.NoError(t, err)
			require.Len(t, got, 1)
			other := "0:" + "00000000000000000000000000000000000000000000000000000000000000AB"
			got, err = st.TracesAfter(ctx, []string{other}, []string{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}, 0, 100)
			require.NoError(t, err)
			require.Empty(t, got)
			got, err = st.TracesAfter(ctx, nil, nil, tr.Seq, 100)
			require.NoError(t, err)
			require.Empty(t, got, "nothing after its place")

			// The same batch again: nothing is numbered, the trace keeps its place.
			second.Present = nil
			require.NoError(t, st.SaveBatch(ctx, second))
			again, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Equal(t, head, again)
			got, err = st.TracesAfter(ctx, nil, nil, 0, 100)
			require.NoError(t, err)
			require.Len(t, got, 1)
			require.Equal(t, tr.Seq, got[0].Seq)
		})
	}
}
