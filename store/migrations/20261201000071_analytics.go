package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerAnalytics must stay in this file: bun names a Go migration after
// the file that registers it.
func registerAnalytics(m *migrate.Migrations) {
	m.MustRegister(analyticsUp, analyticsDown)
}

// Token analytics (package analytics), kept in the transaction that writes
// the actions (store/analytics.go):
//
//   - analytics_trades: one row per counted swap hop (the jetton against TON
//     or USD₮, amounts in smallest units as decimal text), by trace so a
//     re-decoded trace replaces its rows;
//   - analytics_moves: one row per successful jetton transfer, mint, burn;
//   - analytics_candles: per jetton, quote, interval (seconds) and bucket
//     (unix start): prices as reduced fractions "num/den", the keys of
//     the first and last trade, volumes as decimal text;
//   - analytics_volumes: per jetton, interval and bucket: activity counts
//     and amounts, distinct senders and receivers.
//
// Amounts are text, not numeric: SQLite has no exact numeric beyond 64
// bits, and every sum is made in Go with big integers anyway.
func analyticsUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE analytics_trades (
			action_id TEXT COLLATE_C NOT NULL,
			hop INTEGER NOT NULL,
			trace_id TEXT NOT NULL,
			utime BIGINT NOT NULL,
			lt BIGINT NOT NULL,
			jetton TEXT NOT NULL,
			quote TEXT NOT NULL,
			base_amount TEXT NOT NULL,
			quote_amount TEXT NOT NULL,
			buy BOOLEAN NOT NULL,
			trader TEXT NOT NULL,
			PRIMARY KEY (action_id, hop))`,
		`CREATE INDEX analytics_trades_trace ON analytics_trades (trace_id)`,
		`CREATE INDEX analytics_trades_pair ON analytics_trades (jetton, quote, utime)`,
		`CREATE INDEX analytics_trades_trader ON analytics_trades (trader, utime)`,
		`CREATE TABLE analytics_moves (
			action_id TEXT COLLATE_C PRIMARY KEY,
			trace_id TEXT NOT NULL,
			jetton TEXT NOT NULL,
			utime BIGINT NOT NULL,
			kind TEXT NOT NULL,
			sender TEXT NOT NULL,
			receiver TEXT NOT NULL,
			amount TEXT NOT NULL)`,
		`CREATE INDEX analytics_moves_trace ON analytics_moves (trace_id)`,
		`CREATE INDEX analytics_moves_jetton ON analytics_moves (jetton, utime)`,
		`CREATE TABLE analytics_candles (
			jetton TEXT NOT NULL,
			quote TEXT NOT NULL,
			interval_s INTEGER NOT NULL,
			bucket BIGINT NOT NULL,
			open TEXT NOT NULL,
			high TEXT NOT NULL,
			low TEXT NOT NULL,
			close TEXT NOT NULL,
			open_key TEXT NOT NULL,
			close_key TEXT NOT NULL,
			volume_base TEXT NOT NULL,
			volume_quote TEXT NOT NULL,
			trades BIGINT NOT NULL,
			PRIMARY KEY (jetton, quote, interval_s, bucket))`,
		`CREATE TABLE analytics_volumes (
			jetton TEXT NOT NULL,
			interval_s INTEGER NOT NULL,
			bucket BIGINT NOT NULL,
			transfers BIGINT NOT NULL,
			transfer_amount TEXT NOT NULL,
			mints BIGINT NOT NULL,
			mint_amount TEXT NOT NULL,
			burns BIGINT NOT NULL,
			burn_amount TEXT NOT NULL,
			senders BIGINT NOT NULL,
			receivers BIGINT NOT NULL,
			PRIMARY KEY (jetton, interval_s, bucket))`,
	)
}

func analyticsDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS analytics_volumes`, `DROP TABLE IF EXISTS analytics_candles`,
		`DROP TABLE IF EXISTS analytics_moves`, `DROP TABLE IF EXISTS analytics_trades`)
}
