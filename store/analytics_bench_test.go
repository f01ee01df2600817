package store

import (
	"context"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
)

// BenchmarkSaveBatchAnalytics measures what keeping the token analytics
// costs the write path: the same generated actions (mainnet's mix: 6%
// swaps, 31% jetton transfers, mints and burns) written in batches of 500,
// in time order as import and follow write them, with the rollups kept
// ("on") and without ("off"), into a fresh database per run. Compare
// actions/s of on and off from one sitting.
func BenchmarkSaveBatchAnalytics(b *testing.B) {
	p := synth.Params{Seed: 11, Actions: 20_000, Accounts: 2_000, HotAccounts: 4, HotActions: 500, StartUtime: 1_760_000_000}
	var batches []*Batch
	cur := &Batch{}
	_ = synth.Generate(p, func(a *chain.Action) error {
		cur.Actions = append(cur.Actions, *a)
		if len(cur.Actions) == 500 {
			batches = append(batches, cur)
			cur = &Batch{}
		}
		return nil
	})
	for _, db := range []string{"sqlite", "postgres"} {
		for _, mode := range []string{"off", "on"} {
			b.Run(db+"/"+mode, func(b *testing.B) {
				total := 0
				for range b.N {
					b.StopTimer()
					url := ""
					for _, d := range testenv.Databases(b) {
						if d.Name == db {
							url = d.URL
						}
					}
					if url == "" {
						b.Skip(db + " not available")
					}
					s, err := Open(context.Background(), url)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Migrate(context.Background()); err != nil {
						b.Fatal(err)
					}
					s.noAnalytics = mode == "off"
					b.StartTimer()
					for _, batch := range batches {
						if err := s.SaveBatch(context.Background(), batch); err != nil {
							b.Fatal(err)
						}
						total += len(batch.Actions)
					}
					b.StopTimer()
					s.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "actions/s")
			})
		}
	}
}
