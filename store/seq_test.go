package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

func batchOf(actionID string) string { return actionID[:strings.LastIndex(actionID, "-")] }

func seqBatch(writer, n, size int) *store.Batch {
	b := &store.Batch{}
	for i := range size {
		id := fmt.Sprintf("w%d-b%d-a%d", writer, n, i)
		b.Actions = append(b.Actions, chain.Action{ActionID: id, TraceID: "t-" + id, TxHash: "x-" + id,
			Type: "TonTransfer", Status: chain.StatusOK, Value: chain.RawJSON(`{}`),
			StartLt: uint64(1000 - i), EndLt: uint64(1000 - i)})
	}
	return b
}

// Seqs grow in commit order: while two writers commit concurrently, every
// horizon a reader sees (LastActionSeq) is final, so no action committed
// later gets a seq at or below it. That is what lets a stream resume from
// a seq without missing anything.
func TestActionSeqsFollowCommitOrder(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			ctx := context.Background()
			var hooks []uint64
			var mu sync.Mutex
			st.OnActionsCommitted(func(last uint64) {
				mu.Lock()
				hooks = append(hooks, last)
				mu.Unlock()
			})
			type seen struct {
				horizon uint64
				below   int
			}
			var views []seen
			done := make(chan struct{})
			var readers sync.WaitGroup
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					h, err := st.LastActionSeq(ctx)
					require.NoError(t, err)
					var n int
					require.NoError(t, st.DB().NewRaw("SELECT count(*) FROM actions WHERE seq <= ? AND seq > 0", h).Scan(ctx, &n))
					views = append(views, seen{h, n})
				}
			}()
			var writers sync.WaitGroup
			for w := range 2 {
				writers.Add(1)
				go func() {
					defer writers.Done()
					for n := range 40 {
						require.NoError(t, st.SaveBatch(ctx, seqBatch(w, n, 20)))
					}
				}()
			}
			writers.Wait()
			close(done)
			readers.Wait()
			require.NotEmpty(t, views)
			for _, v := range views {
				var n int
				require.NoError(t, st.DB().NewRaw("SELECT count(*) FROM actions WHERE seq <= ? AND seq > 0", v.horizon).Scan(ctx, &n))
				require.Equal(t, v.below, n, "an action committed after horizon %d got a seq below it", v.horizon)
			}
			require.Len(t, hooks, 80, "one hook per commit with new actions")

			// Within a batch, seqs follow the page order (end_lt, action_id);
			// saving the batch again keeps them and announces nothing.
			got, err := st.ActionsAfter(ctx, store.ActionFilter{}, 0, 10_000)
			require.NoError(t, err)
			require.Len(t, got, 1600)
			byID := map[string]uint64{}
			for i, a := range got {
				byID[a.ActionID] = a.Seq
				if i > 0 && batchOf(got[i-1].ActionID) == batchOf(a.ActionID) {
					require.Less(t, got[i-1].EndLt, a.EndLt, "seq order within a batch follows end_lt")
				}
			}
			require.NoError(t, st.SaveBatch(ctx, seqBatch(0, 3, 20)))
			again, err := st.ActionsAfter(ctx, store.ActionFilter{Account: ""}, 0, 10_000)
			require.NoError(t, err)
			for _, a := range again {
				require.Equal(t, byID[a.ActionID], a.Seq, "%s: a rewritten action keeps its seq", a.ActionID)
			}
			require.Len(t, hooks, 80, "a batch with no new action announces nothing")
		})
	}
}
