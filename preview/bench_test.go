package preview

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// BenchmarkPreviewInProcess compares, interleaved in one sitting, an
// uncached estimate with the same message's emulation decoded into a
// preview (Emulate + Build), without HTTP or the address book: what the
// preview itself adds to the emulation.
func BenchmarkPreviewInProcess(b *testing.B) {
	r := loadReplay(b)
	est := r.estimator(nil)
	depth, txs := est.Limits()
	for _, prefix := range []string{"0:DFEC1432", "0:89F356BD", "0:FCD79429"} {
		var x *fees.ExternalMessage
		for i := range r.msgs {
			if chain.RawAddress(r.msgs[i].Account)[:10] == prefix {
				x = &r.msgs[i]
			}
		}
		req, err := fees.ParseParams(fees.Params{Address: x.Account.ToRaw(), Body: x.Body})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if _, err := est.Estimate(ctx, req); err != nil {
			b.Fatal(err)
		}
		b.Run(prefix, func(b *testing.B) {
			var e, p []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := est.Estimate(ctx, req); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				em, err := est.Emulate(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Build(em, nil, Limits{MaxDepth: depth, MaxTransactions: txs}); err != nil {
					b.Fatal(err)
				}
				e, p = append(e, t1.Sub(t0)), append(p, time.Since(t1))
			}
			slices.Sort(e)
			slices.Sort(p)
			b.ReportMetric(float64(e[len(e)/2].Microseconds()), "estimate-p50-µs")
			b.ReportMetric(float64(p[len(p)/2].Microseconds()), "preview-p50-µs")
			b.ReportMetric(float64(p[len(p)/2])/float64(e[len(e)/2]), "preview/estimate")
		})
	}
}
