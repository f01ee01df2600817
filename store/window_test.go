package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
)

// A time window read whole and sorted (smallWindow) answers exactly what
// the ordered walk answers, page after page in both directions, and the
// probe tells windows apart by size.
func TestTimeWindowPlansAgree(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		b := &Batch{}
		const start = 1_760_000_000
		require.NoError(t, synth.Generate(synth.Params{Seed: 3, Actions: 4000, Accounts: 500, HotAccounts: 1,
			HotActions: 400, StartUtime: start}, func(a *chain.Action) error {
			b.Actions = append(b.Actions, *a)
			return nil
		}))
		require.NoError(t, s.SaveBatch(ctx, b))
		var lo, hi uint32
		require.NoError(t, s.db.NewRaw("SELECT min(start_utime), max(end_utime) FROM actions").Scan(ctx, &lo, &hi))
		page := func(f ActionFilter, window bool) []string {
			f.readWindow = window
			var p Page
			v := newParams(s.db)
			res, err := s.prepared(ctx, s.db, s.actionsQuery(f, v).String(), v.vals)
			require.NoError(t, err)
			require.NoError(t, scanPage(res, &p))
			ids := make([]string, len(p.Actions))
			for i, a := range p.Actions {
				ids[i] = a.ActionID
			}
			return ids
		}
		span := hi - lo
		whole := ActionFilter{StartUtime: &lo, EndUtime: &hi, Limit: 25}
		require.Len(t, page(whole, true), 25)
		for _, w := range [][2]uint32{{lo, hi}, {lo + span/3, lo + span/2}, {hi - span/10, hi}, {lo, lo + span/20}, {hi + 1, hi + 100}} {
			su, eu := w[0], w[1]
			for _, asc := range []bool{false, true} {
				for _, off := range []int{0, 7, 300} {
					f := ActionFilter{StartUtime: &su, EndUtime: &eu, Limit: 25, Offset: off, Asc: asc}
					require.Equal(t, page(f, false), page(f, true), "window %v asc %t offset %d", w, asc, off)
					f.Types = []string{"JettonTransfer", "TonTransfer"}
					require.Equal(t, page(f, false), page(f, true), "typed window %v", w)
				}
			}
		}
		su, eu := lo, hi
		small, err := s.smallWindow(ctx, s.db, ActionFilter{StartUtime: &su, EndUtime: &eu})
		require.NoError(t, err)
		require.True(t, small, "4,000 actions are under the probe")
		small, err = s.smallWindow(ctx, s.db, ActionFilter{StartUtime: &su})
		require.NoError(t, err)
		require.False(t, small, "an open window keeps the ordered walk")
	})
}
