package actions_test

import (
	"path/filepath"
	"testing"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// BenchmarkClassify measures traces classified per second over every
// toncenter fixture trace (parsing and assembly excluded).
func BenchmarkClassify(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(b), "toncenter-traces", "traces", "*.json"))
	type item struct {
		tr    *chain.Trace
		known chain.KnownContracts
	}
	var items []item
	for _, f := range files {
		tc, err := chain.ParseToncenterFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, tr := range chain.NewAssembler().Add(tc.Transactions) {
			items = append(items, item{tr, tc.Known})
		}
	}
	b.ResetTimer()
	n := 0
	for range b.N {
		for _, it := range items {
			actions.Classify(it.tr, it.known)
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "traces/s")
}
