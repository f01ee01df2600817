package store

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/chain"
)

// A rebuild makes every analytics row again from the stored actions, in
// one transaction, in three passes that each hold a bounded part in memory
// (a load test's 10M actions with 1M swaps must rebuild in minutes, not the
// 40 of remaking every touched bucket through the incremental path):
//
//  1. the swaps, transfers, mints and burns, type by type in the type
//     index's order (only those actions are read, their heap pages in
//     roughly the order they were written), are turned into trades and
//     moves and written in bulk (COPY on Postgres) into the emptied tables;
//     the pass counts the trades of each pair and the moves of each
//     jetton per day;
//  2. each pair's trades are read back a run of whole days at a time
//     (analytics_trades_pair) and made into the candles of every kept
//     width (analytics.KeptCandlesOf: 1m from the trades, each wider one
//     merged from the one before, as the incremental path makes them);
//  3. each jetton's moves likewise into volumes (distinct owners are
//     counted per bucket, and every bucket lies within one day).
//
// Runs of days are cut at rebuildChunk rows, so memory does not grow with
// the database. On Postgres the tables are truncated: readers of the
// analytics wait for the rebuild's commit (it is a maintenance command),
// and a writer adding analytics rows waits too, so nothing it writes is
// lost or counted twice.

// rebuildChunk is about how many trades or moves a read of pass 2 or 3
// takes (a single busier day is read whole).
const rebuildChunk = 20_000

// rebuildPage is how many actions a read of pass 1 takes.
const rebuildPage = 5_000

// analyticsTypes are the action types analytics count (TradesOf, MoveOf).
var analyticsTypes = []string{"JettonSwap", "JettonTransfer", "JettonMint", "JettonBurn"}

// RebuildAnalytics makes every analytics row again from the stored
// actions and returns how many trades and moves it wrote.
func (s *Store) RebuildAnalytics(ctx context.Context) (trades, moves int, err error) {
	// Minutes at millions of actions: without the serving pool's bounds.
	err = s.maintenance(ctx, 1, func(db *bun.DB) error {
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			r := &rebuild{tx: tx, pairDays: map[pairKey]map[int64]int{}, jettonDays: map[string]map[int64]int{}}
			if s.IsPostgres() {
				r.conn = conn
			}
			if err := r.clear(ctx); err != nil {
				return err
			}
			if err := r.readActions(ctx); err != nil {
				return err
			}
			if r.conn.Conn != nil {
				// The tables were just filled: their statistics are of
				// before (or none), and passes 2 and 3 must walk the indexes.
				if _, err := tx.ExecContext(ctx, "ANALYZE analytics_trades, analytics_moves"); err != nil {
					return err
				}
			}
			if err := r.candles(ctx); err != nil {
				return err
			}
			if err := r.volumes(ctx); err != nil {
				return err
			}
			trades, moves = r.trades, r.moves
			return nil
		})
	})
	return trades, moves, err
}

// rebuild is one rebuild's transaction and what pass 1 counted.
type rebuild struct {
	tx   bun.Tx
	conn bun.Conn // Postgres: the connection under tx, for COPY; zero on SQLite

	pairDays      map[pairKey]map[int64]int // trades per pair and day
	jettonDays    map[string]map[int64]int  // moves per jetton and day
	trades, moves int
}

// rebuildDay is the widest interval: every bucket lies within one of its.
var rebuildDay = analytics.Intervals[len(analytics.Intervals)-1]

func (r *rebuild) clear(ctx context.Context) error {
	if r.conn.Conn != nil {
		_, err := r.tx.ExecContext(ctx, "TRUNCATE analytics_trades, analytics_moves, analytics_candles, analytics_volumes")
		return err
	}
	for _, m := range []any{(*tradeRow)(nil), (*moveRow)(nil), (*candleRow)(nil), (*volumeRow)(nil)} {
		if _, err := r.tx.NewDelete().Model(m).Where("TRUE").Exec(ctx); err != nil {
			return fmt.Errorf("clear analytics: %w", err)
		}
	}
	return nil
}

// readActions is pass 1.
func (r *rebuild) readActions(ctx context.Context) error {
	for _, typ := range analyticsTypes {
		var lt int64 = -1
		after := ""
		for {
			var rows []actionRow
			if err := r.tx.NewSelect().Model(&rows).
				Column("action_id", "trace_id", "type", "status", "value", "end_lt", "end_utime").
				Where("type = ? AND (end_lt, action_id) > (?, ?)", typ, lt, after).
				Order("end_lt", "action_id").Limit(rebuildPage).Scan(ctx); err != nil {
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
			for i := range trades {
				countDay(r.pairDays, pairKey{trades[i].Jetton, trades[i].Quote}, trades[i].Utime)
			}
			for i := range moves {
				countDay(r.jettonDays, moves[i].Jetton, moves[i].Utime)
			}
			r.trades += len(trades)
			r.moves += len(moves)
			if err := writeBulk(ctx, r.tx, r.conn, "trades", trades); err != nil {
				return err
			}
			if err := writeBulk(ctx, r.tx, r.conn, "moves", moves); err != nil {
				return err
			}
			last := rows[len(rows)-1]
			lt, after = last.EndLt, last.ActionID
		}
	}
	return nil
}

// countDay counts one row of key k on utime's day.
func countDay[K comparable](counts map[K]map[int64]int, k K, utime int64) {
	if counts[k] == nil {
		counts[k] = map[int64]int{}
	}
	counts[k][rebuildDay.Bucket(utime)]++
}

// dayRuns cuts the days of counts (rows per day) into spans [from, to) of
// whole days holding about rebuildChunk rows each.
func dayRuns(counts map[int64]int) [][2]int64 {
	days := make([]int64, 0, len(counts))
	for d := range counts {
		days = append(days, d)
	}
	slices.Sort(days)
	var out [][2]int64
	n := 0
	for _, d := range days {
		if k := len(out); k > 0 && n+counts[d] <= rebuildChunk {
			out[k-1][1] = d + rebuildDay.Seconds
			n += counts[d]
			continue
		}
		out = append(out, [2]int64{d, d + rebuildDay.Seconds})
		n = counts[d]
	}
	return out
}

// candles is pass 2.
func (r *rebuild) candles(ctx context.Context) error {
	pairs := make([]pairKey, 0, len(r.pairDays))
	for k := range r.pairDays {
		pairs = append(pairs, k)
	}
	slices.SortFunc(pairs, func(a, b pairKey) int { return cmp.Or(cmp.Compare(a.jetton, b.jetton), cmp.Compare(a.quote, b.quote)) })
	var out []candleRow
	for _, p := range pairs {
		for _, span := range dayRuns(r.pairDays[p]) {
			var rows []tradeRow
			if err := r.tx.NewSelect().Model(&rows).Where("jetton = ? AND quote = ? AND utime >= ? AND utime < ?", p.jetton, p.quote, span[0], span[1]).
				Scan(ctx); err != nil {
				return fmt.Errorf("read trades: %w", err)
			}
			trades := make([]analytics.Trade, len(rows))
			for i := range rows {
				trades[i] = rows[i].toTrade()
			}
			for _, cs := range analytics.KeptCandlesOf(trades) {
				for i := range cs {
					out = append(out, newCandleRow(&cs[i]))
				}
			}
			if len(out) >= rebuildChunk {
				if err := writeBulk(ctx, r.tx, r.conn, "candles", out); err != nil {
					return err
				}
				out = out[:0]
			}
		}
	}
	return writeBulk(ctx, r.tx, r.conn, "candles", out)
}

// volumes is pass 3.
func (r *rebuild) volumes(ctx context.Context) error {
	jettons := make([]string, 0, len(r.jettonDays))
	for j := range r.jettonDays {
		jettons = append(jettons, j)
	}
	slices.Sort(jettons)
	var out []volumeRow
	for _, j := range jettons {
		for _, span := range dayRuns(r.jettonDays[j]) {
			var rows []moveRow
			if err := r.tx.NewSelect().Model(&rows).Where("jetton = ? AND utime >= ? AND utime < ?", j, span[0], span[1]).
				Scan(ctx); err != nil {
				return fmt.Errorf("read moves: %w", err)
			}
			moves := make([]analytics.Move, len(rows))
			for i := range rows {
				moves[i] = rows[i].toMove()
			}
			for _, iv := range analytics.Intervals {
				for _, v := range analytics.Volumes(moves, iv) {
					out = append(out, newVolumeRow(&v))
				}
			}
			if len(out) >= rebuildChunk {
				if err := writeBulk(ctx, r.tx, r.conn, "volumes", out); err != nil {
					return err
				}
				out = out[:0]
			}
		}
	}
	return writeBulk(ctx, r.tx, r.conn, "volumes", out)
}

// writeBulk inserts rows into their table, which holds none of their keys
// (a rebuild emptied it): on Postgres (conn set) by one binary COPY
// straight into the table, on SQLite in multi-row INSERTs.
func writeBulk[T any](ctx context.Context, tx bun.Tx, conn bun.Conn, what string, rows []T) error {
	if len(rows) == 0 {
		return nil
	}
	if conn.Conn == nil {
		const perStatement = 400
		for start := 0; start < len(rows); start += perStatement {
			chunk := rows[start:min(start+perStatement, len(rows))]
			if _, err := tx.NewInsert().Model(&chunk).Exec(ctx); err != nil {
				return fmt.Errorf("save %s: %w", what, err)
			}
		}
		return nil
	}
	s, err := encodeRows(tx, rows)
	if err != nil {
		return err
	}
	query := fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", s.table.SQLName, columns(s.table))
	if _, err := pgdriver.CopyFrom(ctx, conn, bytes.NewReader(s.data), query); err != nil {
		return fmt.Errorf("save %s: %w", what, err)
	}
	return nil
}
