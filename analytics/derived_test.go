package analytics_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// TestDerivedCandlesEqualKept: the widths the store no longer keeps (5m,
// 15m, 4h), merged at read from the kept ones, are the candles it kept
// before (every bucket's trades merged: analytics.Candles of the generated
// actions' trades, not of anything stored), over whole series, ranges
// whose ends fall inside buckets, limits, and the candle before a time.
func TestDerivedCandlesEqualKept(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			p := synth.Params{Seed: 9, Actions: 1000, Accounts: 40, StartUtime: 1_760_000_000, Seconds: 86400}
			var trades []analytics.Trade
			var b store.Batch
			require.NoError(t, synth.Generate(p, func(a *chain.Action) error {
				trades = append(trades, analytics.TradesOf(a)...)
				b.Actions = append(b.Actions, *a)
				if len(b.Actions) == 250 {
					err := st.SaveBatch(ctx, &b)
					b = store.Batch{}
					return err
				}
				return nil
			}))
			require.NoError(t, st.SaveBatch(ctx, &b))
			require.NotEmpty(t, trades)
			start, end := int64(p.StartUtime), int64(p.StartUtime+p.Seconds)

			derived := 0
			for _, iv := range analytics.Intervals {
				if iv.CandleBase() == iv {
					continue
				}
				derived++
				want := map[[2]string][]analytics.Candle{}
				for _, c := range analytics.Candles(trades, iv) {
					k := [2]string{c.Jetton, c.Quote}
					want[k] = append(want[k], c)
				}
				require.Greater(t, len(want), 3)
				for k, list := range want {
					slices.SortFunc(list, func(a, b analytics.Candle) int { return cmp.Compare(a.Bucket, b.Bucket) })
					got, err := st.Candles(ctx, k[0], k[1], iv, start-iv.Seconds, end+iv.Seconds, 0)
					require.NoError(t, err)
					require.Equal(t, render(list), render(got), "%s %v: every candle", iv.Name, k)

					// Ends inside buckets: a bucket counts when it starts in [from, to).
					from, to := start+7*60+13, start+37*iv.Seconds/3+29
					var in []analytics.Candle
					for _, c := range list {
						if c.Bucket >= from && c.Bucket < to {
							in = append(in, c)
						}
					}
					got, err = st.Candles(ctx, k[0], k[1], iv, from, to, 0)
					require.NoError(t, err)
					require.Equal(t, render(in), render(got), "%s %v: [%d, %d)", iv.Name, k, from, to)
					got, err = st.Candles(ctx, k[0], k[1], iv, from, to, 2)
					require.NoError(t, err)
					require.Equal(t, render(in[:min(2, len(in))]), render(got), "%s %v: limit 2", iv.Name, k)

					for _, at := range []int64{start, start + 3*iv.Seconds + 1, (start + end) / 2, list[len(list)-1].Bucket + 1, end + iv.Seconds} {
						var before []analytics.Candle
						for _, c := range list {
							if c.Bucket < at {
								before = []analytics.Candle{c}
							}
						}
						c, err := st.CandleBefore(ctx, k[0], k[1], iv, at)
						require.NoError(t, err)
						var gotBefore []analytics.Candle
						if c != nil {
							gotBefore = []analytics.Candle{*c}
						}
						require.Equal(t, render(before), render(gotBefore), "%s %v: before %d", iv.Name, k, at)
					}
				}
			}
			require.Equal(t, 3, derived, "5m, 15m and 4h are merged at read")
		})
	}
}

// render is candles as text, fractions reduced: what an answer shows.
func render(list []analytics.Candle) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = fmt.Sprintf("%s %s %d %d o=%s h=%s l=%s c=%s %s %s vb=%s vq=%s n=%d", c.Jetton, c.Quote, c.Interval, c.Bucket,
			c.Open, c.High, c.Low, c.Close, c.OpenKey, c.CloseKey, c.VolumeBase, c.VolumeQuote, c.Trades)
	}
	return out
}
