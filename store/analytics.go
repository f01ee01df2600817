package store

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/chain"
)

// Token analytics are kept in the transaction that writes the actions
// (saveBatch), so they can never disagree with the actions a reader sees:
// a trace written again has its trades and moves replaced with its
// actions, and every interval bucket a changed row falls in is made again
// from the rows beneath it (1m candles from the trades, each wider
// interval from the one before it; volumes from the moves). A rebuild runs
// the same code over every stored action.

type tradeRow struct {
	bun.BaseModel `bun:"table:analytics_trades"`

	ActionID    string `bun:"action_id,pk"`
	Hop         int    `bun:"hop,pk"`
	TraceID     string `bun:"trace_id,notnull"`
	Utime       int64  `bun:"utime,notnull"`
	Lt          int64  `bun:"lt,notnull"`
	Jetton      string `bun:"jetton,notnull"`
	Quote       string `bun:"quote,notnull"`
	BaseAmount  string `bun:"base_amount,notnull"`
	QuoteAmount string `bun:"quote_amount,notnull"`
	Buy         bool   `bun:"buy,notnull"`
	Trader      string `bun:"trader,notnull"`
}

type moveRow struct {
	bun.BaseModel `bun:"table:analytics_moves"`

	ActionID string `bun:"action_id,pk"`
	TraceID  string `bun:"trace_id,notnull"`
	Jetton   string `bun:"jetton,notnull"`
	Utime    int64  `bun:"utime,notnull"`
	Kind     string `bun:"kind,notnull"`
	Sender   string `bun:"sender,notnull"`
	Receiver string `bun:"receiver,notnull"`
	Amount   string `bun:"amount,notnull"`
}

type candleRow struct {
	bun.BaseModel `bun:"table:analytics_candles"`

	Jetton      string `bun:"jetton,pk"`
	Quote       string `bun:"quote,pk"`
	IntervalS   int64  `bun:"interval_s,pk"`
	Bucket      int64  `bun:"bucket,pk"`
	Open        string `bun:"open,notnull"`
	High        string `bun:"high,notnull"`
	Low         string `bun:"low,notnull"`
	Close       string `bun:"close,notnull"`
	OpenKey     string `bun:"open_key,notnull"`
	CloseKey    string `bun:"close_key,notnull"`
	VolumeBase  string `bun:"volume_base,notnull"`
	VolumeQuote string `bun:"volume_quote,notnull"`
	Trades      int64  `bun:"trades,notnull"`
}

type volumeRow struct {
	bun.BaseModel `bun:"table:analytics_volumes"`

	Jetton         string `bun:"jetton,pk"`
	IntervalS      int64  `bun:"interval_s,pk"`
	Bucket         int64  `bun:"bucket,pk"`
	Transfers      int64  `bun:"transfers,notnull"`
	TransferAmount string `bun:"transfer_amount,notnull"`
	Mints          int64  `bun:"mints,notnull"`
	MintAmount     string `bun:"mint_amount,notnull"`
	Burns          int64  `bun:"burns,notnull"`
	BurnAmount     string `bun:"burn_amount,notnull"`
	Senders        int64  `bun:"senders,notnull"`
	Receivers      int64  `bun:"receivers,notnull"`
}

func newTradeRow(t *analytics.Trade) tradeRow {
	return tradeRow{ActionID: t.ActionID, Hop: t.Hop, TraceID: t.TraceID, Utime: t.Utime, Lt: t.Lt,
		Jetton: t.Jetton, Quote: t.Quote, BaseAmount: t.Base.String(), QuoteAmount: t.QuoteAmt.String(), Buy: t.Buy, Trader: t.Trader}
}

func (r *tradeRow) toTrade() analytics.Trade {
	return analytics.Trade{ActionID: r.ActionID, Hop: r.Hop, TraceID: r.TraceID, Utime: r.Utime, Lt: r.Lt,
		Jetton: r.Jetton, Quote: r.Quote, Base: bigOf(r.BaseAmount), QuoteAmt: bigOf(r.QuoteAmount), Buy: r.Buy, Trader: r.Trader}
}

func newMoveRow(m *analytics.Move) moveRow {
	return moveRow{ActionID: m.ActionID, TraceID: m.TraceID, Jetton: m.Jetton, Utime: m.Utime, Kind: m.Kind,
		Sender: m.Sender, Receiver: m.Receiver, Amount: m.Amount.String()}
}

func (r *moveRow) toMove() analytics.Move {
	return analytics.Move{ActionID: r.ActionID, TraceID: r.TraceID, Jetton: r.Jetton, Utime: r.Utime, Kind: r.Kind,
		Sender: r.Sender, Receiver: r.Receiver, Amount: bigOf(r.Amount)}
}

func newCandleRow(c *analytics.Candle) candleRow {
	return candleRow{Jetton: c.Jetton, Quote: c.Quote, IntervalS: c.Interval, Bucket: c.Bucket,
		Open: c.Open.String(), High: c.High.String(), Low: c.Low.String(), Close: c.Close.String(),
		OpenKey: c.OpenKey, CloseKey: c.CloseKey, VolumeBase: c.VolumeBase.String(), VolumeQuote: c.VolumeQuote.String(), Trades: c.Trades}
}

func (r *candleRow) toCandle() analytics.Candle {
	return analytics.Candle{Jetton: r.Jetton, Quote: r.Quote, Interval: r.IntervalS, Bucket: r.Bucket,
		Open: ratOf(r.Open), High: ratOf(r.High), Low: ratOf(r.Low), Close: ratOf(r.Close),
		OpenKey: r.OpenKey, CloseKey: r.CloseKey, VolumeBase: bigOf(r.VolumeBase), VolumeQuote: bigOf(r.VolumeQuote), Trades: r.Trades}
}

func newVolumeRow(v *analytics.Volume) volumeRow {
	return volumeRow{Jetton: v.Jetton, IntervalS: v.Interval, Bucket: v.Bucket, Transfers: v.Transfers, TransferAmount: v.TransferAmount.String(),
		Mints: v.Mints, MintAmount: v.MintAmount.String(), Burns: v.Burns, BurnAmount: v.BurnAmount.String(), Senders: v.Senders, Receivers: v.Receivers}
}

func (r *volumeRow) toVolume() analytics.Volume {
	return analytics.Volume{Jetton: r.Jetton, Interval: r.IntervalS, Bucket: r.Bucket, Transfers: r.Transfers, TransferAmount: bigOf(r.TransferAmount),
		Mints: r.Mints, MintAmount: bigOf(r.MintAmount), Burns: r.Burns, BurnAmount: bigOf(r.BurnAmount), Senders: r.Senders, Receivers: r.Receivers}
}

// bigOf and ratOf read what this file wrote; a malformed value (never
// written by it) reads as zero rather than failing a page.
func bigOf(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return n
}

func ratOf(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return new(big.Rat)
	}
	return r
}

// pairKey is a jetton priced in a quote.
type pairKey struct{ jetton, quote string }

// touched is what a write changed: unix times of trades by pair and of
// moves by jetton; the buckets holding them are made again.
type touched struct {
	trades map[pairKey][]int64
	moves  map[string][]int64
}

func newTouched() *touched {
	return &touched{trades: map[pairKey][]int64{}, moves: map[string][]int64{}}
}

// saveAnalytics replaces the trades and moves of the traces written again
// (replaced, base64 ids) and adds those of acts, then makes the touched
// buckets again. It runs inside the batch's transaction, after the
// actions are written.
func saveAnalytics(ctx context.Context, tx bun.Tx, replaced []string, acts []chain.Action) error {
	t := newTouched()
	for start := 0; start < len(replaced); start += 500 {
		chunk := replaced[start:min(start+500, len(replaced))]
		var old []tradeRow
		if err := tx.NewSelect().Model(&old).Column("jetton", "quote", "utime").Where("trace_id IN (?)", bun.In(chunk)).Scan(ctx); err != nil {
			return fmt.Errorf("read old trades: %w", err)
		}
		for _, r := range old {
			k := pairKey{r.Jetton, r.Quote}
			t.trades[k] = append(t.trades[k], r.Utime)
		}
		var oldMoves []moveRow
		if err := tx.NewSelect().Model(&oldMoves).Column("jetton", "utime").Where("trace_id IN (?)", bun.In(chunk)).Scan(ctx); err != nil {
			return fmt.Errorf("read old moves: %w", err)
		}
		for _, r := range oldMoves {
			t.moves[r.Jetton] = append(t.moves[r.Jetton], r.Utime)
		}
		if len(old) > 0 {
			if _, err := tx.NewDelete().Model((*tradeRow)(nil)).Where("trace_id IN (?)", bun.In(chunk)).Exec(ctx); err != nil {
				return fmt.Errorf("delete old trades: %w", err)
			}
		}
		if len(oldMoves) > 0 {
			if _, err := tx.NewDelete().Model((*moveRow)(nil)).Where("trace_id IN (?)", bun.In(chunk)).Exec(ctx); err != nil {
				return fmt.Errorf("delete old moves: %w", err)
			}
		}
	}
	if err := addAnalytics(ctx, tx, acts, t); err != nil {
		return err
	}
	return t.remake(ctx, tx)
}

// addAnalytics writes the trades and moves of acts (kept when stored
// already) and notes them in t.
func addAnalytics(ctx context.Context, tx bun.Tx, acts []chain.Action, t *touched) error {
	var trades []tradeRow
	var moves []moveRow
	for i := range acts {
		for _, tr := range analytics.TradesOf(&acts[i]) {
			trades = append(trades, newTradeRow(&tr))
			k := pairKey{tr.Jetton, tr.Quote}
			t.trades[k] = append(t.trades[k], tr.Utime)
		}
		if m, ok := analytics.MoveOf(&acts[i]); ok {
			moves = append(moves, newMoveRow(&m))
			t.moves[m.Jetton] = append(t.moves[m.Jetton], m.Utime)
		}
	}
	if err := insertChunks(ctx, tx, trades, "CONFLICT (action_id, hop) DO NOTHING"); err != nil {
		return fmt.Errorf("save trades: %w", err)
	}
	if err := insertChunks(ctx, tx, moves, "CONFLICT (action_id) DO NOTHING"); err != nil {
		return fmt.Errorf("save moves: %w", err)
	}
	return nil
}

// buckets are the distinct buckets of iv holding times, ascending.
func buckets(times []int64, iv analytics.Interval) []int64 {
	out := make([]int64, 0, len(times))
	for _, u := range times {
		out = append(out, iv.Bucket(u))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// remake makes every touched bucket again, in key order (writers take row
// locks in one order).
func (t *touched) remake(ctx context.Context, tx bun.Tx) error {
	pairs := make([]pairKey, 0, len(t.trades))
	for k := range t.trades {
		pairs = append(pairs, k)
	}
	slices.SortFunc(pairs, func(a, b pairKey) int {
		if a.jetton != b.jetton {
			return cmpStr(a.jetton, b.jetton)
		}
		return cmpStr(a.quote, b.quote)
	})
	for _, p := range pairs {
		if err := remakeCandles(ctx, tx, p, t.trades[p]); err != nil {
			return err
		}
	}
	jettons := make([]string, 0, len(t.moves))
	for j := range t.moves {
		jettons = append(jettons, j)
	}
	slices.Sort(jettons)
	for _, j := range jettons {
		if err := remakeVolumes(ctx, tx, j, t.moves[j]); err != nil {
			return err
		}
	}
	return nil
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// remakeCandles makes the candles of every interval holding times again:
// 1m ones from the pair's trades, each wider one from the candles of the
// interval before it.
func remakeCandles(ctx context.Context, tx bun.Tx, p pairKey, times []int64) error {
	for i, iv := range analytics.Intervals {
		want := buckets(times, iv)
		lo, hi := want[0], want[len(want)-1]+iv.Seconds
		var made []analytics.Candle
		if i == 0 {
			var rows []tradeRow
			if err := tx.NewSelect().Model(&rows).Where("jetton = ? AND quote = ? AND utime >= ? AND utime < ?", p.jetton, p.quote, lo, hi).Scan(ctx); err != nil {
				return fmt.Errorf("read trades: %w", err)
			}
			trades := make([]analytics.Trade, len(rows))
			for j := range rows {
				trades[j] = rows[j].toTrade()
			}
			made = analytics.Candles(trades, iv)
		} else {
			prev := analytics.Intervals[i-1]
			var rows []candleRow
			if err := tx.NewSelect().Model(&rows).Where("jetton = ? AND quote = ? AND interval_s = ? AND bucket >= ? AND bucket < ?",
				p.jetton, p.quote, prev.Seconds, lo, hi).Order("bucket").Scan(ctx); err != nil {
				return fmt.Errorf("read candles: %w", err)
			}
			groups := map[int64][]analytics.Candle{}
			var order []int64
			for j := range rows {
				b := iv.Bucket(rows[j].Bucket)
				if _, ok := groups[b]; !ok {
					order = append(order, b)
				}
				groups[b] = append(groups[b], rows[j].toCandle())
			}
			for _, b := range order {
				made = append(made, analytics.Merge(groups[b], iv, b))
			}
		}
		if err := putCandles(ctx, tx, p, iv, want, made); err != nil {
			return err
		}
	}
	return nil
}

// putCandles writes the made candles of the wanted buckets and deletes
// the wanted buckets left without trades.
func putCandles(ctx context.Context, tx bun.Tx, p pairKey, iv analytics.Interval, want []int64, made []analytics.Candle) error {
	rows := make([]candleRow, 0, len(made))
	for j := range made {
		if _, ok := slices.BinarySearch(want, made[j].Bucket); ok {
			rows = append(rows, newCandleRow(&made[j]))
		}
	}
	if err := inChunks(want, func(chunk []int64) error {
		_, err := tx.NewDelete().Model((*candleRow)(nil)).Where("jetton = ? AND quote = ? AND interval_s = ? AND bucket IN (?)",
			p.jetton, p.quote, iv.Seconds, bun.In(chunk)).Exec(ctx)
		return err
	}); err != nil {
		return fmt.Errorf("replace candles: %w", err)
	}
	return insertChunks(ctx, tx, rows, "CONFLICT DO NOTHING")
}

// remakeVolumes makes a jetton's volumes of every interval holding times
// again from its moves (distinct owners do not add up across intervals,
// so each interval reads the moves).
func remakeVolumes(ctx context.Context, tx bun.Tx, jetton string, times []int64) error {
	for _, iv := range analytics.Intervals {
		want := buckets(times, iv)
		lo, hi := want[0], want[len(want)-1]+iv.Seconds
		var rows []moveRow
		if err := tx.NewSelect().Model(&rows).Where("jetton = ? AND utime >= ? AND utime < ?", jetton, lo, hi).Scan(ctx); err != nil {
			return fmt.Errorf("read moves: %w", err)
		}
		moves := make([]analytics.Move, 0, len(rows))
		for j := range rows {
			if _, ok := slices.BinarySearch(want, iv.Bucket(rows[j].Utime)); ok {
				moves = append(moves, rows[j].toMove())
			}
		}
		made := analytics.Volumes(moves, iv)
		out := make([]volumeRow, len(made))
		for j := range made {
			out[j] = newVolumeRow(&made[j])
		}
		if err := inChunks(want, func(chunk []int64) error {
			_, err := tx.NewDelete().Model((*volumeRow)(nil)).Where("jetton = ? AND interval_s = ? AND bucket IN (?)",
				jetton, iv.Seconds, bun.In(chunk)).Exec(ctx)
			return err
		}); err != nil {
			return fmt.Errorf("replace volumes: %w", err)
		}
		if err := insertChunks(ctx, tx, out, "CONFLICT DO NOTHING"); err != nil {
			return fmt.Errorf("save volumes: %w", err)
		}
	}
	return nil
}

// inChunks calls fn with parts of list small enough for an IN list.
func inChunks[T any](list []T, fn func([]T) error) error {
	for start := 0; start < len(list); start += 1000 {
		if err := fn(list[start:min(start+1000, len(list))]); err != nil {
			return err
		}
	}
	return nil
}
