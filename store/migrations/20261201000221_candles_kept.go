package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerCandlesKept must stay in this file: bun names a Go migration
// after the file that registers it.
func registerCandlesKept(m *migrate.Migrations) {
	m.MustRegister(candlesKeptUp, candlesKeptDown)
}

// The store keeps only the 1m, 1h and 1d candles (analytics.KeptCandles);
// the 5m, 15m and 4h ones are merged from them at read, so their rows go.
func candlesKeptUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DELETE FROM analytics_candles WHERE interval_s IN (300, 900, 14400)`)
}

// candlesKeptDown leaves the table as it is: a build that keeps those
// widths again makes their rows with `tonql analytics rebuild`.
func candlesKeptDown(ctx context.Context, db *bun.DB) error { return nil }
