package store

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/chain"
)

// Token analytics are kept in the transaction that writes the actions
// (saveBatch), so they can never disagree with the actions a reader sees:
// a trace written again has its trades and moves replaced with its
// actions, and every interval bucket a changed row falls in is made again
// from the rows beneath it (1m candles from the trades, each wider kept
// width from the one before it; volumes from the moves). Only the candles
// of analytics.KeptCandles are stored; the other widths are merged from
// them at read (Store.Candles). A rebuild runs
// the same code over every stored action. New actions alone (the usual
// import or follow batch) are added to the stored rows instead
// (analyticsadd.go), which gives the same rows.

type tradeRow struct {
	bun.BaseModel `bun:"table:analytics_trades"`

	ActionID    string `bun:"action_id,pk"`
	Hop         int    `bun:"hop,pk,type:integer"`
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
	IntervalS   int64  `bun:"interval_s,pk,type:integer"`
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
	IntervalS      int64  `bun:"interval_s,pk,type:integer"`
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
		Open: fracOf(r.Open), High: fracOf(r.High), Low: fracOf(r.Low), Close: fracOf(r.Close),
		OpenKey: r.OpenKey, CloseKey: r.CloseKey, VolumeBase: amountOf(r.VolumeBase), VolumeQuote: amountOf(r.VolumeQuote), Trades: r.Trades}
}

func newVolumeRow(v *analytics.Volume) volumeRow {
	return volumeRow{Jetton: v.Jetton, IntervalS: v.Interval, Bucket: v.Bucket, Transfers: v.Transfers, TransferAmount: v.TransferAmount.String(),
		Mints: v.Mints, MintAmount: v.MintAmount.String(), Burns: v.Burns, BurnAmount: v.BurnAmount.String(), Senders: v.Senders, Receivers: v.Receivers}
}

func (r *volumeRow) toVolume() analytics.Volume {
	return analytics.Volume{Jetton: r.Jetton, Interval: r.IntervalS, Bucket: r.Bucket, Transfers: r.Transfers, TransferAmount: amountOf(r.TransferAmount),
		Mints: r.Mints, MintAmount: amountOf(r.MintAmount), Burns: r.Burns, BurnAmount: amountOf(r.BurnAmount), Senders: r.Senders, Receivers: r.Receivers}
}

// bigOf, amountOf and fracOf read what this file wrote; a malformed value (never
// written by it) reads as zero rather than failing a page.
func bigOf(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return n
}

func amountOf(s string) analytics.Amount {
	a, _ := analytics.ParseAmount(s) // zero when malformed
	return a
}

func fracOf(s string) analytics.Frac {
	f, _ := analytics.ParseFrac(s) // the zero Frac when malformed
	return f
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
// (replaced, base64 ids) and adds those of acts. It runs inside the
// batch's transaction before the batch's writer w is flushed: when the
// batch replaced no stored trade or move, its trades, moves and rollup
// rows are queued on w (addInPlace) and go with the batch's own script;
// otherwise it returns remake, to run after the flush (the touched
// buckets are made again from the rows beneath, which must be written
// first).
func saveAnalytics(ctx context.Context, tx bun.Tx, conn bun.Conn, w *writer, replaced []string, acts []chain.Action) (remake func() error, err error) {
	t := newTouched()
	removed := 0
	for start := 0; start < len(replaced); start += 500 {
		chunk := replaced[start:min(start+500, len(replaced))]
		var old []tradeRow
		if err := tx.NewSelect().Model(&old).Column("jetton", "quote", "utime").Where("trace_id IN (?)", bun.In(chunk)).Scan(ctx); err != nil {
			return nil, fmt.Errorf("read old trades: %w", err)
		}
		for _, r := range old {
			k := pairKey{r.Jetton, r.Quote}
			t.trades[k] = append(t.trades[k], r.Utime)
		}
		var oldMoves []moveRow
		if err := tx.NewSelect().Model(&oldMoves).Column("jetton", "utime").Where("trace_id IN (?)", bun.In(chunk)).Scan(ctx); err != nil {
			return nil, fmt.Errorf("read old moves: %w", err)
		}
		for _, r := range oldMoves {
			t.moves[r.Jetton] = append(t.moves[r.Jetton], r.Utime)
		}
		removed += len(old) + len(oldMoves)
		if len(old) > 0 {
			if _, err := tx.NewDelete().Model((*tradeRow)(nil)).Where("trace_id IN (?)", bun.In(chunk)).Exec(ctx); err != nil {
				return nil, fmt.Errorf("delete old trades: %w", err)
			}
		}
		if len(oldMoves) > 0 {
			if _, err := tx.NewDelete().Model((*moveRow)(nil)).Where("trace_id IN (?)", bun.In(chunk)).Exec(ctx); err != nil {
				return nil, fmt.Errorf("delete old moves: %w", err)
			}
		}
	}
	trades, moves := analyticsOf(acts)
	if removed == 0 {
		if ok, err := addInPlace(ctx, tx, w, trades, moves); ok || err != nil {
			return nil, err
		}
	}
	return func() error {
		if err := addAnalytics(ctx, tx, trades, moves, t); err != nil {
			return err
		}
		return t.remake(ctx, tx, conn)
	}, nil
}

// analyticsOf is the trades and moves of acts, as values: the in-place
// path adds them to the rollups as they are (formatting their amounts to
// rows and parsing them back was a tenth of the rollups' client CPU).
func analyticsOf(acts []chain.Action) (trades []analytics.Trade, moves []analytics.Move) {
	for i := range acts {
		trades = append(trades, analytics.TradesOf(&acts[i])...)
		if m, ok := analytics.MoveOf(&acts[i]); ok {
			moves = append(moves, m)
		}
	}
	return trades, moves
}

// analyticsRows are the trades and moves of acts as rows.
func analyticsRows(acts []chain.Action) ([]tradeRow, []moveRow) {
	trades, moves := analyticsOf(acts)
	return tradeRows(trades), moveRows(moves)
}

func tradeRows(trades []analytics.Trade) []tradeRow {
	rows := make([]tradeRow, len(trades))
	for i := range trades {
		rows[i] = newTradeRow(&trades[i])
	}
	return rows
}

func moveRows(moves []analytics.Move) []moveRow {
	rows := make([]moveRow, len(moves))
	for i := range moves {
		rows[i] = newMoveRow(&moves[i])
	}
	return rows
}

// addAnalytics writes trades and moves (kept when stored already) and
// notes them in t.
func addAnalytics(ctx context.Context, tx bun.Tx, trades []analytics.Trade, moves []analytics.Move, t *touched) error {
	for i := range trades {
		k := pairKey{trades[i].Jetton, trades[i].Quote}
		t.trades[k] = append(t.trades[k], trades[i].Utime)
	}
	for i := range moves {
		t.moves[moves[i].Jetton] = append(t.moves[moves[i].Jetton], moves[i].Utime)
	}
	if err := insertChunks(ctx, tx, tradeRows(trades), "CONFLICT (action_id, hop) DO NOTHING"); err != nil {
		return fmt.Errorf("save trades: %w", err)
	}
	if err := insertChunks(ctx, tx, moveRows(moves), "CONFLICT (action_id) DO NOTHING"); err != nil {
		return fmt.Errorf("save moves: %w", err)
	}
	return nil
}

// remake makes every touched bucket again. Reads are one statement per
// interval (and per stretch of time the write touched) for all pairs at
// once; the writes are queued and sent as one script (writer), so keeping
// the rollups costs a batch about a dozen round trips, not several per
// jetton. Each wider interval merges the stored candles of the one before
// with those just made (which the queued writes have not stored yet).
func (t *touched) remake(ctx context.Context, tx bun.Tx, conn bun.Conn) error {
	w := newWriter(tx, conn)
	var upserts []candleRow
	var prev map[pairBucket]*analytics.Candle // made at the interval before; nil: none
	var jettons []string
	for k := range t.trades {
		jettons = append(jettons, k.jetton)
	}
	slices.Sort(jettons)
	jettons = slices.Compact(jettons)
	for i, iv := range analytics.KeptCandles {
		want := map[pairBucket]bool{}
		if i == 0 {
			for k, times := range t.trades {
				for _, u := range times {
					want[pairBucket{k.jetton, k.quote, iv.Bucket(u)}] = true
				}
			}
		} else {
			for k := range prev {
				want[pairBucket{k.jetton, k.quote, iv.Bucket(k.bucket)}] = true
			}
		}
		if len(want) == 0 {
			break // no trades touched
		}
		parts := map[pairBucket][]analytics.Candle{}
		if i == 0 {
			for _, r := range stretches(want, iv.Seconds) {
				var rows []tradeRow
				if err := inChunks(jettons, func(chunk []string) error {
					return tx.NewSelect().Model(&rows).Where("jetton IN (?) AND utime >= ? AND utime < ?", bun.In(chunk), r[0], r[1]).Scan(ctx)
				}); err != nil {
					return fmt.Errorf("read trades: %w", err)
				}
				for j := range rows {
					tr := rows[j].toTrade()
					k := pairBucket{tr.Jetton, tr.Quote, iv.Bucket(tr.Utime)}
					if want[k] {
						parts[k] = append(parts[k], analytics.CandleOf(&tr, iv))
					}
				}
			}
		} else {
			below := analytics.KeptCandles[i-1]
			var children []int64
			for k := range want {
				for b := k.bucket; b < k.bucket+iv.Seconds; b += below.Seconds {
					children = append(children, b)
				}
			}
			slices.Sort(children)
			children = slices.Compact(children)
			var rows []candleRow
			if err := inChunks(children, func(chunk []int64) error {
				return tx.NewSelect().Model(&rows).Where("interval_s = ? AND jetton IN (?) AND bucket IN (?)", below.Seconds, bun.In(jettons), bun.In(chunk)).Scan(ctx)
			}); err != nil {
				return fmt.Errorf("read candles: %w", err)
			}
			for j := range rows {
				ck := pairBucket{rows[j].Jetton, rows[j].Quote, rows[j].Bucket}
				if _, remade := prev[ck]; remade {
					continue // stored before this write; made again below
				}
				if k := (pairBucket{ck.jetton, ck.quote, iv.Bucket(ck.bucket)}); want[k] {
					parts[k] = append(parts[k], rows[j].toCandle())
				}
			}
			for ck, c := range prev {
				if c != nil {
					k := pairBucket{ck.jetton, ck.quote, iv.Bucket(ck.bucket)}
					parts[k] = append(parts[k], *c)
				}
			}
		}
		made := make(map[pairBucket]*analytics.Candle, len(want))
		for k := range want {
			if len(parts[k]) == 0 {
				made[k] = nil
				if err := w.exec(ctx, "replace candles", tx.NewDelete().Model((*candleRow)(nil)).
					Where("jetton = ? AND quote = ? AND interval_s = ? AND bucket = ?", k.jetton, k.quote, iv.Seconds, k.bucket)); err != nil {
					return err
				}
				continue
			}
			c := analytics.Merge(parts[k], iv, k.bucket)
			made[k] = &c
			upserts = append(upserts, newCandleRow(&c))
		}
		prev = made
	}
	sortCandleRows(upserts)
	if err := queueRows(ctx, w, "save candles", upserts, candleUpsert); err != nil {
		return err
	}
	if err := t.remakeVolumes(ctx, tx, w); err != nil {
		return err
	}
	return w.flush(ctx)
}

// pairBucket is one candle's key within an interval.
type pairBucket struct {
	jetton, quote string
	bucket        int64
}

// stretches are the spans [from, to) of time that cover the wanted
// buckets of width sec, neighbours merged: a write touches a few minutes,
// so this is usually one span.
func stretches[K comparable](want map[K]bool, sec int64) [][2]int64 {
	var bs []int64
	for k := range want {
		switch v := any(k).(type) {
		case pairBucket:
			bs = append(bs, v.bucket)
		case jettonBucket:
			bs = append(bs, v.bucket)
		}
	}
	slices.Sort(bs)
	bs = slices.Compact(bs)
	var out [][2]int64
	for _, b := range bs {
		if n := len(out); n > 0 && b <= out[n-1][1]+sec*10 {
			out[n-1][1] = b + sec
			continue
		}
		out = append(out, [2]int64{b, b + sec})
	}
	return out
}

// jettonBucket is one volume's key within an interval.
type jettonBucket struct {
	jetton string
	bucket int64
}

// remakeVolumes makes the touched volumes of every interval again from
// the moves (distinct owners do not add up across intervals, so each
// interval reads the moves), queueing the writes on w.
func (t *touched) remakeVolumes(ctx context.Context, tx bun.Tx, w *writer) error {
	jettons := make([]string, 0, len(t.moves))
	for j := range t.moves {
		jettons = append(jettons, j)
	}
	slices.Sort(jettons)
	var upserts []volumeRow
	for _, iv := range analytics.Intervals {
		want := map[jettonBucket]bool{}
		for j, times := range t.moves {
			for _, u := range times {
				want[jettonBucket{j, iv.Bucket(u)}] = true
			}
		}
		if len(want) == 0 {
			break // no moves touched
		}
		var moves []analytics.Move
		for _, r := range stretches(want, iv.Seconds) {
			var rows []moveRow
			if err := inChunks(jettons, func(chunk []string) error {
				return tx.NewSelect().Model(&rows).Where("jetton IN (?) AND utime >= ? AND utime < ?", bun.In(chunk), r[0], r[1]).Scan(ctx)
			}); err != nil {
				return fmt.Errorf("read moves: %w", err)
			}
			for j := range rows {
				if want[jettonBucket{rows[j].Jetton, iv.Bucket(rows[j].Utime)}] {
					moves = append(moves, rows[j].toMove())
				}
			}
		}
		for _, v := range analytics.Volumes(moves, iv) {
			delete(want, jettonBucket{v.Jetton, v.Bucket})
			upserts = append(upserts, newVolumeRow(&v))
		}
		for k := range want { // no moves left there
			if err := w.exec(ctx, "replace volumes", tx.NewDelete().Model((*volumeRow)(nil)).
				Where("jetton = ? AND interval_s = ? AND bucket = ?", k.jetton, iv.Seconds, k.bucket)); err != nil {
				return err
			}
		}
	}
	return queueRows(ctx, w, "save volumes", upserts, volumeUpsert)
}

// The upserts of a made candle or volume: the new row is the whole truth.
const (
	candleUpsert = `CONFLICT (jetton, quote, interval_s, bucket) DO UPDATE SET open = EXCLUDED.open, high = EXCLUDED.high,
		low = EXCLUDED.low, close = EXCLUDED.close, open_key = EXCLUDED.open_key, close_key = EXCLUDED.close_key,
		volume_base = EXCLUDED.volume_base, volume_quote = EXCLUDED.volume_quote, trades = EXCLUDED.trades`
	volumeUpsert = `CONFLICT (jetton, interval_s, bucket) DO UPDATE SET transfers = EXCLUDED.transfers,
		transfer_amount = EXCLUDED.transfer_amount, mints = EXCLUDED.mints, mint_amount = EXCLUDED.mint_amount, burns = EXCLUDED.burns,
		burn_amount = EXCLUDED.burn_amount, senders = EXCLUDED.senders, receivers = EXCLUDED.receivers`
)

// sortCandleRows puts rows in key order: writers lock rows in one order.
func sortCandleRows(rows []candleRow) {
	slices.SortFunc(rows, func(a, b candleRow) int {
		return cmp.Or(strings.Compare(a.Jetton, b.Jetton), strings.Compare(a.Quote, b.Quote), cmp.Compare(a.IntervalS, b.IntervalS), cmp.Compare(a.Bucket, b.Bucket))
	})
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
