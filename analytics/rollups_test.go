package analytics_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// fixtureFiles are every real fixture with actions: the raw blocks, the
// fee-replay block and the toncenter traces.
func fixtureFiles(t *testing.T) []string {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	return append(files, traces...)
}

func importFiles(t *testing.T, st *store.Store, files []string) {
	t.Helper()
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), files, func(path string, _ ingest.Stats, err error) {
		require.NoError(t, err, path)
	}))
}

func snapshot(t *testing.T, st *store.Store) map[string][]string {
	return storetest.AnalyticsRows(t, st)
}

// TestRollupsAgreeOnEveryPath: the rows after one import equal those after
// the files were written one batch at a time in reverse order (the
// follower's way: traces completed and replaced across batches), after a
// reclassify of every trace, and after a rebuild from the actions.
func TestRollupsAgreeOnEveryPath(t *testing.T) {
	files := fixtureFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importFiles(t, st, files)
			once := snapshot(t, st)
			require.NotEmpty(t, once["analytics_trades"], "the fixtures hold swaps against TON")
			require.NotEmpty(t, once["analytics_candles"])
			require.NotEmpty(t, once["analytics_volumes"])
			require.Equal(t, countDistinct(t, st), countCandles(t, st, 60), "one 1m candle per traded minute of a pair")

			// Written again: idempotent.
			importFiles(t, st, files)
			require.Equal(t, once, snapshot(t, st))

			require.NoError(t, ingest.Reclassify(ctx, st, "", func(int, int, string) {}))
			require.Equal(t, once, snapshot(t, st), "after reclassify")

			trades, moves, err := st.RebuildAnalytics(ctx)
			require.NoError(t, err)
			require.Equal(t, len(once["analytics_trades"]), trades)
			require.Equal(t, len(once["analytics_moves"]), moves)
			require.Equal(t, once, snapshot(t, st), "after rebuild")

			// The follower's way: one batch per file, newest first, into a
			// database of its own.
			inc := storetest.Open(t, freshLike(t, db))
			for i := len(files) - 1; i >= 0; i-- {
				importFiles(t, inc, files[i:i+1])
			}
			require.Equal(t, once, snapshot(t, inc), "written one file at a time")
		})
	}
}

// countDistinct counts the (pair, minute) buckets of the stored trades.
func countDistinct(t *testing.T, st *store.Store) int {
	var n int
	require.NoError(t, st.DB().NewSelect().TableExpr("(SELECT DISTINCT jetton, quote, utime - utime % 60 AS b FROM analytics_trades) AS d").
		ColumnExpr("count(*)").Scan(context.Background(), &n))
	return int(n)
}

func countCandles(t *testing.T, st *store.Store, interval int) int {
	n, err := st.DB().NewSelect().TableExpr("analytics_candles").Where("interval_s = ?", interval).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// freshLike is a new empty database of db's kind.
func freshLike(t *testing.T, db testenv.Database) string {
	if db.Name == "postgres" {
		return testenv.NewPostgresDatabase(t)
	}
	return "sqlite:" + filepath.Join(t.TempDir(), "inc.db")
}

// TestRollupsOfGeneratedSwaps: the load generator's swaps (buys, sells,
// USD₮ pairs, two-pool routes, dust) written in many small batches, as the
// follower writes, give the rows a rebuild gives; every counted trade is
// one of its hops.
func TestRollupsOfGeneratedSwaps(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			p := synth.Params{Seed: 3, Actions: 3000, Accounts: 40, StartUtime: 1_760_000_000}
			var b store.Batch
			swaps, hops := 0, 0
			require.NoError(t, synth.Generate(p, func(a *chain.Action) error {
				if a.Type == "JettonSwap" && a.Status == chain.StatusOK {
					swaps++
					hops += len(analytics.TradesOf(a))
				}
				b.Actions = append(b.Actions, *a)
				if len(b.Actions) == 50 {
					err := st.SaveBatch(ctx, &b)
					b = store.Batch{}
					return err
				}
				return nil
			}))
			require.NoError(t, st.SaveBatch(ctx, &b))
			inc := snapshot(t, st)
			require.Greater(t, hops, swaps, "two-pool routes count each hop")
			require.Len(t, inc["analytics_trades"], hops)
			var quotes []string
			require.NoError(t, st.DB().NewSelect().TableExpr("analytics_trades").ColumnExpr("DISTINCT quote").Scan(ctx, &quotes))
			require.ElementsMatch(t, []string{analytics.TON, analytics.USDT}, quotes)
			_, _, err := st.RebuildAnalytics(ctx)
			require.NoError(t, err)
			require.Equal(t, inc, snapshot(t, st))
		})
	}
}
