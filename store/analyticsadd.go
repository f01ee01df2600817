package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/analytics"
)

// Adding to the rollups in place. Import and follow mostly write actions
// the store has not seen: then every touched candle is the stored candle
// merged with the batch's own trades (open, close, high, low, sums: all
// merge in any order), and every touched volume the stored one plus the
// batch's moves, its distinct senders and receivers less those the bucket
// had already. That needs no trade or move read back, only the stored
// rollup rows of the touched buckets and, for the distinct owners, which
// of the batch's owners moved the jetton in the touched days before: three
// reads a batch whatever its size (making the buckets again from the rows
// beneath re-read every touched day of moves), and the writes go in the
// batch's own script (on Postgres one round trip with the actions'). A batch that replaced
// stored trades or moves (a trace written again, a reclassify) takes the
// remake path (analytics.go): a removed trade cannot be subtracted from a
// high or an open.

// addInPlace queues trades and moves (none of them removed by this
// batch) and their rollups on w. ok false: some were stored already (an
// action kept from an earlier write), and nothing was queued; the caller
// makes the buckets again from the rows.
func addInPlace(ctx context.Context, tx bun.Tx, w *writer, trades []analytics.Trade, moves []analytics.Move) (ok bool, err error) {
	if len(trades) == 0 && len(moves) == 0 {
		return true, nil
	}
	seen, stored, err := ownersSeen(ctx, tx, trades, moves)
	if err != nil || stored {
		return false, err
	}
	if err := queueRows(ctx, w, "save trades", tradeRows(trades), "CONFLICT (action_id, hop) DO NOTHING"); err != nil {
		return false, err
	}
	if err := queueRows(ctx, w, "save moves", moveRows(moves), "CONFLICT (action_id) DO NOTHING"); err != nil {
		return false, err
	}
	if err := addCandles(ctx, tx, w, trades); err != nil {
		return false, err
	}
	return true, addVolumes(ctx, tx, w, moves, seen)
}

// addCandles merges the trades into the stored candles of every kept
// width: the batch's own candles are made as a rebuild makes them
// (analytics.KeptCandlesOf: each trade's price and key once, each wider
// width merged from the one before).
func addCandles(ctx context.Context, tx bun.Tx, w *writer, trades []analytics.Trade) error {
	if len(trades) == 0 {
		return nil
	}
	type key struct {
		jetton, quote string
		interval      int64
		bucket        int64
	}
	made := map[key]analytics.Candle{}
	q := tx.NewSelect().Model((*candleRow)(nil))
	for i, batch := range analytics.KeptCandlesOf(trades) {
		iv := analytics.KeptCandles[i]
		var keys keySet
		for _, c := range batch {
			made[key{c.Jetton, c.Quote, iv.Seconds, c.Bucket}] = c
			keys.add(c.Jetton, c.Quote, c.Bucket)
		}
		keys.where(q, iv.Seconds)
	}
	var stored []candleRow
	if err := q.Scan(ctx, &stored); err != nil {
		return fmt.Errorf("read candles: %w", err)
	}
	for i := range stored {
		r := &stored[i]
		k := key{r.Jetton, r.Quote, r.IntervalS, r.Bucket}
		if c, ok := made[k]; ok {
			made[k] = analytics.Merge([]analytics.Candle{r.toCandle(), c}, analytics.Interval{Seconds: r.IntervalS}, r.Bucket)
		}
	}
	upserts := make([]candleRow, 0, len(made))
	for _, c := range made {
		upserts = append(upserts, newCandleRow(&c))
	}
	sortCandleRows(upserts)
	return queueRows(ctx, w, "save candles", upserts, candleUpsert)
}

// ownerBucket is a (jetton, owner) that sent (role 's') or received ('r')
// in the minute starting at minute.
type ownerBucket struct {
	role          byte
	jetton, owner string
	minute        int64
}

// ownersSeen finds, among the owners of moves, those that moved the same
// jetton in the same role in the days the moves fall in, by minute: every
// interval is whole minutes, so a minute tells which bucket of each it is
// in. The database groups by minute, so a busy owner costs a row a minute.
// The owners are found by their own index (analytics_moves_sender,
// _receiver; migration 20261201000222), each owner's moves of the days, of
// any jetton (those of other jettons are never looked up): by the jettons'
// index it read every move of every touched jetton in the day, a cost that
// grew with the day (a fifth of the rollups' CPU at 12,000 actions).
// The same statement tells whether any of the trades' or moves' actions
// is stored already (stored: the rows cannot simply be added).
func ownersSeen(ctx context.Context, tx bun.Tx, trades []analytics.Trade, moves []analytics.Move) (seen map[ownerBucket]bool, stored bool, err error) {
	seen = map[ownerBucket]bool{}
	day := analytics.Intervals[len(analytics.Intervals)-1]
	var senders, receivers []string
	var days []int64
	for i := range moves {
		m := &moves[i]
		days = append(days, day.Bucket(m.Utime))
		if m.Sender != "" {
			senders = append(senders, m.Sender)
		}
		if m.Receiver != "" {
			receivers = append(receivers, m.Receiver)
		}
	}
	for _, l := range []*[]string{&senders, &receivers} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	slices.Sort(days)
	days = slices.Compact(days)
	span := func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			for _, d := range days {
				q.WhereOr("utime >= ? AND utime < ?", d, d+day.Seconds)
			}
			return q
		})
	}
	var rows []struct {
		Role   string `bun:"role"`
		Jetton string `bun:"jetton"`
		Owner  string `bun:"owner"`
		Minute int64  `bun:"minute"`
	}
	part := func(role, column string, owners []string) *bun.SelectQuery {
		q := tx.NewSelect().Model((*moveRow)(nil)).
			ColumnExpr("? AS role, jetton, ? AS owner, utime - utime % 60 AS minute", role, bun.Ident(column))
		if len(owners) == 0 {
			return q.Where("FALSE")
		}
		return span(q.Where("? IN (?)", bun.Ident(column), bun.In(owners))).GroupExpr("jetton, ?, minute", bun.Ident(column))
	}
	present := func(role string, model any, ids []string) *bun.SelectQuery {
		q := tx.NewSelect().Model(model).ColumnExpr("? AS role, '' AS jetton, action_id AS owner, 0 AS minute", role)
		if len(ids) == 0 {
			return q.Where("FALSE")
		}
		return q.Where("action_id IN (?)", bun.In(ids))
	}
	tradeIDs := make([]string, len(trades))
	for i := range trades {
		tradeIDs[i] = trades[i].ActionID
	}
	moveIDs := make([]string, len(moves))
	for i := range moves {
		moveIDs[i] = moves[i].ActionID
	}
	if err := part("s", "sender", senders).UnionAll(part("r", "receiver", receivers)).
		UnionAll(present("t", (*tradeRow)(nil), tradeIDs)).UnionAll(present("m", (*moveRow)(nil), moveIDs)).Scan(ctx, &rows); err != nil {
		return nil, false, fmt.Errorf("read move owners: %w", err)
	}
	for _, r := range rows {
		if r.Role == "t" || r.Role == "m" {
			stored = true
			continue
		}
		seen[ownerBucket{r.Role[0], r.Jetton, r.Owner, r.Minute}] = true
	}
	return seen, stored, nil
}

// addVolumes adds the moves to the stored volumes of every interval; seen
// is ownersSeen of them.
func addVolumes(ctx context.Context, tx bun.Tx, w *writer, moves []analytics.Move, seen map[ownerBucket]bool) error {
	if len(moves) == 0 {
		return nil
	}
	type key struct {
		jetton   string
		interval int64
		bucket   int64
	}
	made := map[key]analytics.Volume{}
	q := tx.NewSelect().Model((*volumeRow)(nil))
	for _, iv := range analytics.Intervals {
		// A batch's owner already counted in the bucket is not new there.
		type owner struct {
			role          byte
			jetton, owner string
			bucket        int64
		}
		before := make(map[owner]bool, len(seen))
		for o := range seen {
			before[owner{o.role, o.jetton, o.owner, iv.Bucket(o.minute)}] = true
		}
		var keys keySet
		for _, v := range analytics.Volumes(moves, iv) {
			made[key{v.Jetton, iv.Seconds, v.Bucket}] = v
			keys.add(v.Jetton, "", v.Bucket)
		}
		counted := map[owner]bool{}
		for i := range moves {
			m := &moves[i]
			for _, o := range []owner{{'s', m.Jetton, m.Sender, iv.Bucket(m.Utime)}, {'r', m.Jetton, m.Receiver, iv.Bucket(m.Utime)}} {
				if o.owner == "" || counted[o] || !before[o] {
					continue
				}
				counted[o] = true
				k := key{o.jetton, iv.Seconds, o.bucket}
				v := made[k]
				if o.role == 's' {
					v.Senders--
				} else {
					v.Receivers--
				}
				made[k] = v
			}
		}
		keys.where(q, iv.Seconds)
	}
	var stored []volumeRow
	if err := q.Scan(ctx, &stored); err != nil {
		return fmt.Errorf("read volumes: %w", err)
	}
	for i := range stored {
		// The read crosses the touched jettons and buckets, so some rows
		// are not the batch's: skip them before parsing their amounts.
		k := key{stored[i].Jetton, stored[i].IntervalS, stored[i].Bucket}
		v, ok := made[k]
		if !ok {
			continue
		}
		s := stored[i].toVolume()
		s.Transfers += v.Transfers
		s.TransferAmount = s.TransferAmount.Add(v.TransferAmount)
		s.Mints += v.Mints
		s.MintAmount = s.MintAmount.Add(v.MintAmount)
		s.Burns += v.Burns
		s.BurnAmount = s.BurnAmount.Add(v.BurnAmount)
		s.Senders += v.Senders
		s.Receivers += v.Receivers
		made[k] = s
	}
	upserts := make([]volumeRow, 0, len(made))
	for _, v := range made {
		upserts = append(upserts, newVolumeRow(&v))
	}
	slices.SortFunc(upserts, func(a, b volumeRow) int {
		return cmp.Or(strings.Compare(a.Jetton, b.Jetton), cmp.Compare(a.IntervalS, b.IntervalS), cmp.Compare(a.Bucket, b.Bucket))
	})
	return queueRows(ctx, w, "save volumes", upserts, volumeUpsert)
}

// analyticsOffByBuild is set by builds that keep no rollups (noanalytics.go).
var analyticsOffByBuild = false

// keySet is the keys of one width's rollup rows a batch touched: jetton,
// quote (candles; "" for volumes) and bucket.
type keySet struct {
	rows            int
	jettons, quotes []string
	buckets         []int64
	groups          map[pairKey][]int64
}

func (k *keySet) add(jetton, quote string, bucket int64) {
	if k.groups == nil {
		k.groups = map[pairKey][]int64{}
	}
	k.rows++
	p := pairKey{jetton, quote}
	k.groups[p] = append(k.groups[p], bucket)
	k.jettons = append(k.jettons, jetton)
	k.quotes = append(k.quotes, quote)
	k.buckets = append(k.buckets, bucket)
}

// where adds to q the stored rows of the width (interval_s) among the
// keys. Usually one term: every touched jetton, quote and bucket crossed (a
// batch spans a few minutes, so the cross has few more keys than the
// batch, and the rows read that it did not touch are skipped by the
// caller); one term per jetton and quote, each with its own buckets, made
// SQLite parse a statement of hundreds of terms, most of the read's cost.
// A batch spread over much time would cross into far more keys than it
// has: then one term per group.
func (k *keySet) where(q *bun.SelectQuery, interval int64) {
	if k.rows == 0 {
		return
	}
	for _, l := range []*[]string{&k.jettons, &k.quotes} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	slices.Sort(k.buckets)
	k.buckets = slices.Compact(k.buckets)
	candles := k.quotes[0] != "" // volumes have no quote
	if len(k.jettons)*len(k.quotes)*len(k.buckets) <= 4*k.rows+64 {
		if candles {
			q.WhereOr("(interval_s = ? AND jetton IN (?) AND quote IN (?) AND bucket IN (?))", interval, bun.In(k.jettons), bun.In(k.quotes), bun.In(k.buckets))
		} else {
			q.WhereOr("(interval_s = ? AND jetton IN (?) AND bucket IN (?))", interval, bun.In(k.jettons), bun.In(k.buckets))
		}
		return
	}
	for p, bs := range k.groups {
		if candles {
			q.WhereOr("(jetton = ? AND quote = ? AND interval_s = ? AND bucket IN (?))", p.jetton, p.quote, interval, bun.In(bs))
		} else {
			q.WhereOr("(jetton = ? AND interval_s = ? AND bucket IN (?))", p.jetton, interval, bun.In(bs))
		}
	}
}
