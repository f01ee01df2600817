package notify_test

import (
	"context"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/store"
)

// A read of both kinds reads actions and transactions by two statements,
// and the address book is read between them: commits that land there are
// seen by the transactions' statement only. Here two commits are made at
// exactly that point (the book of the first read makes them), on the live
// path and on a replay. Every stored action and transaction must still be
// told, once: before, the hub moved past the actions of the first of them
// (its position became the last transaction of the second), and the
// e2e load test lost a few actions of the burst on Postgres. A
// subscription of account states as well gets each transaction's state at
// the place after it, live and on the replay.
func TestCommitsBetweenReadsLoseNothing(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.GreaterOrEqual(t, len(files), 6)
	both := []string{notify.TypeActions, notify.TypeTransactions}
	all := []string{notify.TypeActions, notify.TypeTransactions, notify.TypeAccountState}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			im := ingest.New(st)
			importFile := func(f string) {
				_, err := im.ImportFile(ctx, f)
				require.NoError(t, err, f)
			}
			// between holds the files to import inside the next book read,
			// by an importer of its own (one importer is one goroutine's);
			// made counts the times it did, hookErr is what failed there.
			var between atomic.Pointer[[]string]
			var made atomic.Int32
			var hookErr atomic.Pointer[error]
			hookIm := ingest.New(st)
			real := (&resolvers.Resolver{Store: st}).AddressBookAndMetadata
			h, err := notify.Start(ctx, notify.Options{Store: st,
				Book: func(ctx context.Context, addrs []string) (chain.AddressBook, chain.Metadata, error) {
					if fs := between.Swap(nil); fs != nil {
						for _, f := range *fs {
							if _, err := hookIm.ImportFile(ctx, f); err != nil {
								hookErr.Store(&err)
							}
						}
						made.Add(1)
					}
					return real(ctx, addrs)
				}})
			require.NoError(t, err)
			t.Cleanup(h.Close)
			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)

			// Live: the hub's read of the first file's commit.
			allLive, err := h.Subscribe(ctx, notify.Request{Types: both})
			require.NoError(t, err)
			defer allLive.Close()
			actsLive, err := h.Subscribe(ctx, notify.Request{})
			require.NoError(t, err)
			defer actsLive.Close()
			statesLive, err := h.Subscribe(ctx, notify.Request{Types: all})
			require.NoError(t, err)
			defer statesLive.Close()
			between.Store(&[]string{files[1], files[2]})
			importFile(files[0])
			require.Eventually(t, func() bool { return made.Load() == 1 }, time.Minute, time.Millisecond, "the commits between the reads were made")
			require.Nil(t, hookErr.Load())
			live, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return h.Stats().Last >= live }, time.Minute, time.Millisecond)
			wantActs, wantTxs := storedAfter(t, st, start)
			require.NotEmpty(t, wantTxs)
			gotActs, gotTxs := drain(t, actsLive, live)
			require.Equal(t, wantActs, gotActs, "live, actions only: every action")
			require.Empty(t, gotTxs)
			gotActs, gotTxs = drain(t, allLive, live)
			require.Equal(t, wantActs, gotActs, "live, both kinds: every action")
			require.Equal(t, wantTxs, gotTxs, "live, both kinds: every transaction")
			gotActs, gotTxs = drain(t, statesLive, live)
			require.Equal(t, wantActs, gotActs, "live, with states: every action")
			require.Equal(t, withStates(wantTxs), gotTxs, "live, with states: every transaction and its state")

			// Replay: the first page a resumed subscription reads.
			between.Store(&[]string{files[3], files[4], files[5]})
			replay, err := h.Subscribe(ctx, notify.Request{Types: both, After: &start})
			require.NoError(t, err)
			defer replay.Close()
			first, err := replay.Next(ctx)
			require.NoError(t, err)
			require.NotNil(t, first)
			require.Equal(t, int32(2), made.Load())
			require.Nil(t, hookErr.Load())
			end, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			wantActs, wantTxs = storedAfter(t, st, start)
			gotActs, gotTxs = drain(t, replay, end)
			gotActs, gotTxs = addSeq(first, gotActs, gotTxs)
			require.Equal(t, wantActs, gotActs, "replay: every action")
			require.Equal(t, wantTxs, gotTxs, "replay: every transaction")

			// A replay from the middle, every kind: what follows, once.
			mid := wantTxs[len(wantTxs)/2] // a transaction told, its state not yet
			resumed, err := h.Subscribe(ctx, notify.Request{Types: all, After: &mid})
			require.NoError(t, err)
			defer resumed.Close()
			gotActs, gotTxs = drain(t, resumed, end)
			var restActs, restTxs []uint64
			for _, s := range wantActs {
				if s > mid {
					restActs = append(restActs, s)
				}
			}
			for _, s := range withStates(wantTxs) {
				if s > mid {
					restTxs = append(restTxs, s)
				}
			}
			require.Equal(t, restActs, gotActs, "resumed: every later action")
			require.Equal(t, restTxs, gotTxs, "resumed: the state of the transaction at the cursor, then every later transaction and state")
		})
	}
}

// storedAfter are the seqs of the stored actions a stream shows (not
// nested) and of the transactions, after start.
func storedAfter(t *testing.T, st *store.Store, start uint64) (acts, txs []uint64) {
	ctx := context.Background()
	require.NoError(t, st.DB().NewRaw("SELECT seq FROM actions WHERE seq > ? AND ancestors = '' ORDER BY seq", int64(start)).Scan(ctx, &acts))
	require.NoError(t, st.DB().NewRaw("SELECT seq FROM transactions WHERE seq > ? ORDER BY seq", int64(start)).Scan(ctx, &txs))
	return acts, txs
}

// drain takes s's events until its position reaches end, by kind.
func drain(t *testing.T, s *notify.Subscription, end uint64) (acts, txs []uint64) {
	ctx := context.Background()
	deadline := time.After(time.Minute)
	for s.Position() < end {
		e, err := s.Next(ctx)
		require.NoError(t, err)
		if e == nil {
			select {
			case <-s.Ready():
			case <-deadline:
				t.Fatalf("position %d, not %d, after a minute", s.Position(), end)
			}
			continue
		}
		acts, txs = addSeq(e, acts, txs)
	}
	return acts, txs
}

// withStates are the transactions' seqs and their states' (the place
// after each), sorted.
func withStates(txs []uint64) []uint64 {
	var out []uint64
	for _, s := range txs {
		out = append(out, s, s+store.TxSlotState)
	}
	return out
}

// addSeq adds e's seq to its kind's list, kept sorted: a transaction's
// and an account state's to txs.
func addSeq(e *notify.Event, acts, txs []uint64) ([]uint64, []uint64) {
	if e.Tx != nil || e.State != nil {
		txs = append(txs, e.Seq)
		sort.Slice(txs, func(i, j int) bool { return txs[i] < txs[j] })
	} else {
		acts = append(acts, e.Seq)
		sort.Slice(acts, func(i, j int) bool { return acts[i] < acts[j] })
	}
	return acts, txs
}
