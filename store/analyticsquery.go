package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/analytics"
)

// Candles reads a pair's candles of iv with from <= bucket < to, oldest
// first, at most limit (0: all). A width the store does not keep
// (analytics.KeptCandles) is merged from the stored candles of its base,
// which lie whole inside its buckets: the same candles the store would
// have kept (TestDerivedCandlesEqualKept), read from a few times the rows.
func (s *Store) Candles(ctx context.Context, jetton, quote string, iv analytics.Interval, from, to int64, limit int) ([]analytics.Candle, error) {
	base := iv.CandleBase()
	if base == iv {
		return s.keptCandles(ctx, jetton, quote, iv, from, to, limit)
	}
	first := iv.Bucket(from)
	if first < from {
		first += iv.Seconds
	}
	if to <= first {
		return nil, nil
	}
	// The base candles of iv's buckets first..(the one holding to-1).
	parts, err := s.keptCandles(ctx, jetton, quote, base, first, iv.Bucket(to-1)+iv.Seconds, limit*int(iv.Seconds/base.Seconds))
	if err != nil {
		return nil, err
	}
	out := analytics.MergeInto(parts, iv) // in the parts' order: oldest first
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// keptCandles reads the stored candles of a kept width. The key columns
// the query fixes (jetton, quote, interval) are not read back: a third of
// the text each row carries, scanned 8,760 times for a year of 1h candles.
func (s *Store) keptCandles(ctx context.Context, jetton, quote string, iv analytics.Interval, from, to int64, limit int) ([]analytics.Candle, error) {
	var rows []candleRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&rows).Column(candleValues...).
			Where("jetton = ? AND quote = ? AND interval_s = ? AND bucket >= ? AND bucket < ?", jetton, quote, iv.Seconds, from, to).
			Order("bucket").Limit(int64(limit)).Scan(ctx)
	})
	if err != nil {
		return nil, err
	}
	out := make([]analytics.Candle, len(rows))
	for i := range rows {
		rows[i].Jetton, rows[i].Quote, rows[i].IntervalS = jetton, quote, iv.Seconds
		out[i] = rows[i].toCandle()
	}
	return out, nil
}

// candleValues are the columns of a candle row but its key's fixed part.
var candleValues = []string{"bucket", "open", "high", "low", "close", "open_key", "close_key", "volume_base", "volume_quote", "trades"}

// CandleBefore is a pair's newest candle of iv starting before t, nil
// when none. For a width not kept: the bucket of iv holding the newest
// base candle of a bucket of iv starting before t, merged from its base
// candles (those after t included, as a kept candle would hold them).
func (s *Store) CandleBefore(ctx context.Context, jetton, quote string, iv analytics.Interval, t int64) (*analytics.Candle, error) {
	base := iv.CandleBase()
	if base == iv {
		return s.keptCandleBefore(ctx, jetton, quote, iv, t)
	}
	last, err := s.keptCandleBefore(ctx, jetton, quote, base, iv.Bucket(t-1)+iv.Seconds)
	if err != nil || last == nil {
		return nil, err
	}
	b := iv.Bucket(last.Bucket)
	parts, err := s.keptCandles(ctx, jetton, quote, base, b, b+iv.Seconds, 0)
	if err != nil || len(parts) == 0 {
		return nil, err
	}
	c := analytics.Merge(parts, iv, b)
	return &c, nil
}

func (s *Store) keptCandleBefore(ctx context.Context, jetton, quote string, iv analytics.Interval, t int64) (*analytics.Candle, error) {
	var rows []candleRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&rows).
			Where("jetton = ? AND quote = ? AND interval_s = ? AND bucket < ?", jetton, quote, iv.Seconds, t).
			Order("bucket DESC").Limit(1).Scan(ctx)
	})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	c := rows[0].toCandle()
	return &c, nil
}

// Volumes reads a jetton's stored activity of iv with from <= bucket < to,
// oldest first, at most limit.
func (s *Store) Volumes(ctx context.Context, jetton string, iv analytics.Interval, from, to int64, limit int) ([]analytics.Volume, error) {
	var rows []volumeRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&rows).
			Where("jetton = ? AND interval_s = ? AND bucket >= ? AND bucket < ?", jetton, iv.Seconds, from, to).
			Order("bucket").Limit(int64(limit)).Scan(ctx)
	})
	if err != nil {
		return nil, err
	}
	out := make([]analytics.Volume, len(rows))
	for i := range rows {
		out[i] = rows[i].toVolume()
	}
	return out, nil
}

// Trades reads an account's counted trades, newest first, older than the
// trade whose Key is before ("" for the newest), at most limit.
func (s *Store) Trades(ctx context.Context, trader, before string, limit int) ([]analytics.Trade, error) {
	return s.trades(ctx, func(q *bun.SelectQuery) (*bun.SelectQuery, error) {
		if before != "" {
			utime, lt, id, hop, ok := analytics.ParseKey(before)
			if !ok {
				return nil, fmt.Errorf("malformed trade key")
			}
			q = q.Where("(utime, lt, action_id, hop) < (?, ?, ?, ?)", utime, lt, id, hop)
		}
		return q.Where("trader = ?", trader).Order("utime DESC", "lt DESC", "action_id DESC", "hop DESC").Limit(int64(limit)), nil
	})
}

// TradesOldest returns up to limit of a trader's trades, oldest first.
func (s *Store) TradesOldest(ctx context.Context, trader string, limit int) ([]analytics.Trade, error) {
	return s.trades(ctx, func(q *bun.SelectQuery) (*bun.SelectQuery, error) {
		return q.Where("trader = ?", trader).Order("utime", "lt", "action_id", "hop").Limit(int64(limit)), nil
	})
}

// trades reads the trades a query shaped by shape selects.
func (s *Store) trades(ctx context.Context, shape func(*bun.SelectQuery) (*bun.SelectQuery, error)) ([]analytics.Trade, error) {
	var rows []tradeRow
	err := s.read(func(db *bun.DB) error {
		q, err := shape(db.NewSelect().Model(&rows))
		if err != nil {
			return err
		}
		return q.Scan(ctx)
	})
	if err != nil {
		return nil, err
	}
	out := make([]analytics.Trade, len(rows))
	for i := range rows {
		out[i] = rows[i].toTrade()
	}
	return out, nil
}

// JettonSeen tells whether the store has a trade or a move of a jetton.
func (s *Store) JettonSeen(ctx context.Context, jetton string) (bool, error) {
	var seen bool
	err := s.read(func(db *bun.DB) error {
		var err error
		seen, err = db.NewSelect().Model((*moveRow)(nil)).Where("jetton = ?", jetton).Exists(ctx)
		if err == nil && !seen {
			seen, err = db.NewSelect().Model((*tradeRow)(nil)).Where("jetton = ?", jetton).Exists(ctx)
		}
		return err
	})
	return seen, err
}

// JettonHolderCount counts the wallets of a jetton the store knows with a
// balance known to be above 0.
func (s *Store) JettonHolderCount(ctx context.Context, jetton string) (int, error) {
	var n int
	err := s.read(func(db *bun.DB) error {
		c, err := db.NewSelect().Model((*jettonWalletRow)(nil)).Where("jetton = ? AND balance IS NOT NULL AND balance <> ?", jetton, zeroAmount).Count(ctx)
		n = int(c)
		return err
	})
	return n, err
}
