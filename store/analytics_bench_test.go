package store

import (
	"context"
	"fmt"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
)

// BenchmarkSaveBatchAnalytics measures what keeping the token analytics
// costs the write path: the same generated actions (mainnet's mix: 6%
// swaps, 31% jetton transfers, mints and burns) written in batches of 500,
// in time order as import and follow write them, without the rollups
// ("off") and with them ("on"), each into a fresh database. Every
// iteration writes both, off then on, so a machine whose speed drifts
// slows both alike: on/off is the ratio of the two rates.
func BenchmarkSaveBatchAnalytics(b *testing.B) {
	p := synth.Params{Seed: 11, Actions: 6_000, Accounts: 2_000, HotAccounts: 4, HotActions: 150, StartUtime: 1_760_000_000}
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
	for _, db := range testenv.Databases(b) {
		b.Run(db.Name, func(b *testing.B) {
			var spent [2]time.Duration // off, on
			for range b.N {
				for mode := range spent {
					s, err := Open(context.Background(), freshURL(b, db))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Migrate(context.Background()); err != nil {
						b.Fatal(err)
					}
					s.noAnalytics = mode == 0
					start := time.Now()
					for _, batch := range batches {
						if err := s.SaveBatch(context.Background(), batch); err != nil {
							b.Fatal(err)
						}
					}
					spent[mode] += time.Since(start)
					s.Close()
				}
			}
			actions := float64(b.N * len(batches) * 500)
			b.ReportMetric(actions/spent[0].Seconds(), "off-actions/s")
			b.ReportMetric(actions/spent[1].Seconds(), "on-actions/s")
			b.ReportMetric(spent[0].Seconds()/spent[1].Seconds(), "on/off")
		})
	}
}

// freshURL is a new empty database of db's kind.
func freshURL(b *testing.B, db testenv.Database) string {
	if db.Name == "postgres" {
		return testenv.NewPostgresDatabase(b)
	}
	return "sqlite:" + filepath.Join(b.TempDir(), "bench.db")
}

// BenchmarkCandlesYear reads a year of 1h candles of one jetton (8,760
// rows among 21 jettons' years) through Store.Candles ("store": the query,
// scan and conversion to big numbers) and as the bare SQL with its rows
// scanned into strings ("sql"): their ratio is what the read path adds to
// the database's own work.
func BenchmarkCandlesYear(b *testing.B) {
	ctx := context.Background()
	for _, db := range testenv.Databases(b) {
		s, err := Open(ctx, db.URL)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Migrate(ctx); err != nil {
			b.Fatal(err)
		}
		const hours = 8760
		start := int64(1_735_689_600) // 2025-01-01
		for j := 0; j <= 20; j++ {
			rows := make([]candleRow, 0, hours)
			for h := int64(0); h < hours; h++ {
				// A swap's price as stored: quote nanotons per jetton unit,
				// reduced (amounts of 10-13 digits, as real swaps have).
				p := big.NewRat(1_000_000_007+h*7919+int64(j), 987_654_321_000+h*104_729).String()
				rows = append(rows, candleRow{Jetton: fmt.Sprintf("0:%064X", j), Quote: "TON", IntervalS: 3600, Bucket: start + h*3600,
					Open: p, High: p, Low: p, Close: p, OpenKey: "a", CloseKey: "b", VolumeBase: "123456789000", VolumeQuote: "987654321", Trades: 7})
			}
			if err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				return insertChunks(ctx, tx, rows, "CONFLICT DO NOTHING")
			}); err != nil {
				b.Fatal(err)
			}
		}
		target := fmt.Sprintf("0:%064X", 7)
		iv, _ := analytics.ParseInterval("1h")
		b.Run(db.Name+"/store", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				list, err := s.Candles(ctx, target, "TON", iv, start, start+hours*3600, 10_000)
				if err != nil || len(list) != hours {
					b.Fatal(err, len(list))
				}
			}
		})
		// store+render: the page's work without HTTP, the rows rendered as
		// the REST and GraphQL answers render them.
		b.Run(db.Name+"/store+render", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				list, err := s.Candles(ctx, target, "TON", iv, start, start+hours*3600, 10_000)
				if err != nil || len(list) != hours {
					b.Fatal(err, len(list))
				}
				points := make([]analytics.CandlePoint, len(list))
				for i := range list {
					points[i] = list[i].Point(9, 9)
				}
			}
		})
		b.Run(db.Name+"/sql", func(b *testing.B) {
			q := s.db.NewSelect().Model((*candleRow)(nil)).
				Where("jetton = ? AND quote = ? AND interval_s = ? AND bucket >= ? AND bucket < ?", target, "TON", iv.Seconds, start, start+hours*3600).
				Order("bucket").Limit(10_000).String()
			for range b.N {
				rows, err := s.db.QueryContext(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				var v [13]any
				var sv [13]string
				for i := range v {
					v[i] = &sv[i]
				}
				for rows.Next() {
					if err := rows.Scan(v[:]...); err != nil {
						b.Fatal(err)
					}
					n++
				}
				rows.Close()
				if n != hours {
					b.Fatal(n)
				}
			}
		})
		s.Close()
	}
}

// BenchmarkCandleRowRender is the server's CPU per stored candle on the
// page, without the database: a scanned row read back (toCandle) and
// rendered (Point), as Store.Candles and the answers do 8,760 times for a
// year of 1h candles.
func BenchmarkCandleRowRender(b *testing.B) {
	p := func(n, d int64) string { return big.NewRat(n, d).String() }
	r := candleRow{Jetton: "0:AB", Quote: "TON", IntervalS: 3600, Bucket: 1_735_689_600,
		Open: p(1_000_070_007, 987_654_321_000), High: p(1_000_590_011, 987_655_002_013), Low: p(999_870_001, 987_654_104_729),
		Close: p(1_000_100_003, 987_654_900_021), OpenKey: "a", CloseKey: "b", VolumeBase: "123456789000", VolumeQuote: "987654321", Trades: 7}
	b.ReportAllocs()
	for range b.N {
		c := r.toCandle()
		c.Point(9, 9)
	}
}

// BenchmarkAnalyticsOfBatch is the in-place path's client CPU before any
// read, without a database: a batch's trades and moves taken from its
// actions' values, their rows for the write, and the batch's own candles
// of every kept width (the same 6,000 generated actions as
// BenchmarkSaveBatchAnalytics, per batch of 500).
func BenchmarkAnalyticsOfBatch(b *testing.B) {
	p := synth.Params{Seed: 11, Actions: 6_000, Accounts: 2_000, HotAccounts: 4, HotActions: 150, StartUtime: 1_760_000_000}
	var acts []chain.Action
	_ = synth.Generate(p, func(a *chain.Action) error {
		acts = append(acts, *a)
		return nil
	})
	b.ReportAllocs()
	for range b.N {
		for start := 0; start < len(acts); start += 500 {
			trades, moves := analyticsOf(acts[start:min(start+500, len(acts))])
			_, _ = tradeRows(trades), moveRows(moves)
			_ = analytics.KeptCandlesOf(trades)
		}
	}
}
