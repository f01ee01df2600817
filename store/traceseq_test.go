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

// A trace takes its stream position when it is stored complete: each
// complete trace has one, after every seq of its transactions and actions
// (the commit that completes it numbers them first), none shared with
// any other row; a trace first stored incomplete takes it in the commit
// that completes it; importing again changes none. TracesAfter pages
// through them by position, resumed anywhere, and filters by account and
// by external hash as the SQL reading of the same says.
func TestTraceSeqs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	require.NotEmpty(t, files)
	sort.Strings(files)
	half := len(files) / 2
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importFiles := func(files []string) {
				require.NoError(t, ingest.New(st).ImportFiles(ctx, files, func(p string, _ ingest.Stats, err error) {
					require.NoError(t, err, p)
				}))
			}
			importFiles(files[:half])
			mid, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			var open []string
			require.NoError(t, st.DB().NewRaw("SELECT id FROM traces WHERE NOT complete").Scan(ctx, &open))
			importFiles(files[half:])
			var n int
			scan := func(q string, args ...any) int {
				require.NoError(t, st.DB().NewRaw(q, args...).Scan(ctx, &n))
				return n
			}
			complete := scan("SELECT count(*) FROM traces WHERE complete")
			require.Positive(t, complete)
			require.Zero(t, scan("SELECT count(*) FROM traces WHERE complete AND seq IS NULL"), "every complete trace has a position")
			require.Zero(t, scan("SELECT count(*) FROM traces WHERE NOT complete AND seq IS NOT NULL"), "an incomplete one has none")
			require.Zero(t, scan(`SELECT count(*) FROM (SELECT seq FROM (SELECT seq FROM traces WHERE seq IS NOT NULL UNION ALL SELECT seq FROM actions
				UNION ALL SELECT seq FROM transactions WHERE seq IS NOT NULL) AS s GROUP BY seq HAVING count(*) > 1) AS d`), "no position shared")
			require.Zero(t, scan(`SELECT count(*) FROM traces AS tr WHERE tr.seq < (SELECT max(a.seq) FROM actions AS a WHERE a.trace_id = tr.id)
				OR tr.seq < (SELECT max(t.seq) FROM transactions AS t WHERE t.trace_id = tr.id)`), "a trace comes after its parts")
			var completed int
			for _, id := range open {
				var seq *int64
				require.NoError(t, st.DB().NewRaw("SELECT seq FROM traces WHERE id = ?", id).Scan(ctx, &seq))
				if seq != nil {
					completed++
					require.Greater(t, uint64(*seq), mid, "numbered by the commit that completed it")
				}
			}
			t.Logf("%s: %d complete traces, %d completed by the second import", db.Name, complete, completed)

			var before []int64
			require.NoError(t, st.DB().NewRaw("SELECT seq FROM traces WHERE seq IS NOT NULL ORDER BY seq").Scan(ctx, &before))
			head, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			importFiles(files)
			var again []int64
			require.NoError(t, st.DB().NewRaw("SELECT seq FROM traces WHERE seq IS NOT NULL ORDER BY seq").Scan(ctx, &again))
			require.Equal(t, before, again, "importing again moves no trace")
			head2, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Equal(t, head, head2, "and takes no number")

			// Paging from 0 in small pages, and resuming from a middle one.
			page := func(accounts, norms []string, after uint64) []int64 {
				var got []int64
				for {
					tr, err := st.TracesAfter(ctx, accounts, norms, after, 7)
					require.NoError(t, err)
					for _, x := range tr {
						require.True(t, x.Complete)
						require.NotEmpty(t, x.Transactions, x.ID)
						require.Equal(t, x.ID, x.Transactions[0].Hash.Base64(), "the root first (lt order)")
						got = append(got, int64(x.Seq))
						after = x.Seq
					}
					if len(tr) < 7 {
						return got
					}
				}
			}
			require.Equal(t, before, page(nil, nil, 0))
			require.Equal(t, before[len(before)/2+1:], page(nil, nil, uint64(before[len(before)/2])))

			var acc string
			require.NoError(t, st.DB().NewRaw(`SELECT t.account FROM transactions AS t JOIN traces AS tr ON tr.id = t.trace_id
				WHERE tr.seq IS NOT NULL GROUP BY t.account ORDER BY count(DISTINCT tr.id) DESC, t.account LIMIT 1`).Scan(ctx, &acc))
			var want []int64
			require.NoError(t, st.DB().NewRaw(`SELECT seq FROM traces AS tr WHERE seq IS NOT NULL AND id IN
				(SELECT trace_id FROM transactions WHERE account = ?) ORDER BY seq`, acc).Scan(ctx, &want))
			require.Greater(t, len(want), 1)
			require.Equal(t, want, page([]string{acc}, nil, 0), "the traces of an account")

			var norm string
			var normSeq int64
			require.NoError(t, st.DB().NewRaw(`SELECT m.hash_norm, tr.seq FROM traces AS tr JOIN messages AS m ON m.tx_hash = tr.id AND m.direction = 'in'
				WHERE tr.seq IS NOT NULL AND m.hash_norm IS NOT NULL ORDER BY tr.seq LIMIT 1`).Scan(ctx, &norm, &normSeq))
			got, err := st.TracesAfter(ctx, nil, []string{norm}, 0, 10)
			require.NoError(t, err)
			require.Len(t, got, 1, "the trace of an external hash")
			require.Equal(t, normSeq, int64(got[0].Seq))
			require.Equal(t, norm, got[0].ExternalHashNorm)
		})
	}
}

// A trace stored incomplete has no position; the commit that completes it
// gives it the next one, and saving it complete again keeps it.
func TestTraceSeqOnCompletion(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			tr := &chain.Trace{ID: chain.Hash{1, 2, 3}, StartLt: 100, EndLt: 200, StartUtime: 10, EndUtime: 20, Transactions: 2}
			seqOf := func() *int64 {
				var seq *int64
				require.NoError(t, st.DB().NewRaw("SELECT seq FROM traces WHERE id = ?", tr.ID.Base64()).Scan(ctx, &seq))
				return seq
			}
			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Traces: []*chain.Trace{tr}}))
			require.Nil(t, seqOf(), "incomplete: no position")
			before, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			done := *tr
			done.Complete, done.EndLt, done.Transactions = true, 300, 3
			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Traces: []*chain.Trace{&done}}))
			seq := seqOf()
			require.NotNil(t, seq)
			require.Equal(t, int64(before)+1, *seq, "the next position, taken by the completing commit")
			last, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Equal(t, uint64(*seq), last)
			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Traces: []*chain.Trace{&done}}))
			require.Equal(t, *seq, *seqOf(), "saved again: kept")
			last2, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Equal(t, last, last2, "and no number taken")
		})
	}
}
