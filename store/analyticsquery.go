package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/chain"
)

// Candles reads a pair's stored candles of iv with from <= bucket < to,
// oldest first, at most limit.
func (s *Store) Candles(ctx context.Context, jetton, quote string, iv analytics.Interval, from, to int64, limit int) ([]analytics.Candle, error) {
	var rows []candleRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&rows).
			Where("jetton = ? AND quote = ? AND interval_s = ? AND bucket >= ? AND bucket < ?", jetton, quote, iv.Seconds, from, to).
			Order("bucket").Limit(int64(limit)).Scan(ctx)
	})
	if err != nil {
		return nil, err
	}
	out := make([]analytics.Candle, len(rows))
	for i := range rows {
		out[i] = rows[i].toCandle()
	}
	return out, nil
}

// CandleBefore is a pair's newest candle of iv starting before t, nil
// when none.
func (s *Store) CandleBefore(ctx context.Context, jetton, quote string, iv analytics.Interval, t int64) (*analytics.Candle, error) {
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

// RebuildAnalytics makes every analytics row again from the stored
// actions, in one transaction: what the incremental path keeps must equal
// what this gives.
func (s *Store) RebuildAnalytics(ctx context.Context) (trades, moves int, err error) {
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, m := range []any{(*tradeRow)(nil), (*moveRow)(nil), (*candleRow)(nil), (*volumeRow)(nil)} {
			if _, err := tx.NewDelete().Model(m).Where("TRUE").Exec(ctx); err != nil {
				return fmt.Errorf("clear analytics: %w", err)
			}
		}
		t := newTouched()
		after := ""
		for {
			var rows []actionRow
			if err := tx.NewSelect().Model(&rows).
				Where("type IN (?)", bun.In([]string{"JettonSwap", "JettonTransfer", "JettonMint", "JettonBurn"})).
				Where("action_id > ?", after).Order("action_id").Limit(2000).Scan(ctx); err != nil {
				return fmt.Errorf("read actions: %w", err)
			}
			if len(rows) == 0 {
				break
			}
			acts := make([]chain.Action, len(rows))
			for i := range rows {
				acts[i] = *rows[i].toChain()
			}
			trades, moves := analyticsRows(acts)
			if err := addAnalytics(ctx, tx, trades, moves, t); err != nil {
				return err
			}
			after = rows[len(rows)-1].ActionID
		}
		for _, v := range t.trades {
			trades += len(v)
		}
		for _, v := range t.moves {
			moves += len(v)
		}
		return t.remake(ctx, tx, bun.Conn{})
	})
	return trades, moves, err
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
