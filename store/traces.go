package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// TraceFilter selects traces as toncenter's /api/v3/traces does: by one
// of account, trace ids, transaction hashes or message hashes, and by
// end time or end lt.
type TraceFilter struct {
	Account              *string
	TraceIDs, TxHashes   []string
	MsgHashes            []string
	StartUtime, EndUtime *uint32
	StartLt, EndLt       *uint64
	McSeqno              *uint32
	// Messages: as TxFilter's, for the traces' transactions.
	Messages MessageRead

	Limit, Offset int
	Desc          bool
}

// StoredTrace is a trace's row and its stored transactions, by lt.
type StoredTrace struct {
	ID                   string
	StartLt, EndLt       uint64
	StartUtime, EndUtime uint32
	Complete             bool
	Transactions         []*chain.Transaction
}

// maxTraceTransactions bounds the transactions read of one page of
// traces; a page past it is cut (the trace says it is incomplete).
const maxTraceTransactions = 10000

// FindTraces returns a page of traces ordered by end lt (end utime when a
// utime bound is given), then id, with their transactions.
func (s *Store) FindTraces(ctx context.Context, f TraceFilter) ([]StoredTrace, error) {
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	var rows []traceRow
	err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		// Traces named by key (their id, a transaction's or a message's
		// hash) are looked up alike for every value: those pages run
		// prepared; an account's traces and the time ranges are planned
		// for their values, as FindTransactions does.
		v := keyedParams(db, len(f.TraceIDs) > 0 || len(f.TxHashes) > 0 || len(f.MsgHashes) > 0)
		q := db.NewSelect().Model(&rows)
		if f.Account != nil {
			// The lt bounds (every transaction of a trace lies within its
			// lt range) let Postgres prune the lt partitions per trace at
			// run time (docs/QUERY-PLANS.md).
			q = q.Where(`EXISTS (SELECT 1 FROM transactions AS t WHERE t.trace_id = traces.id AND t.account = ?
				AND t.lt >= traces.start_lt AND t.lt <= traces.end_lt)`, v.add(*f.Account))
			if s.IsPostgres() {
				// Postgres cannot tell how many traces hold the account, so
				// it planned a parallel walk of traces for a busy one:
				// starting the workers took 25-30 ms of a page that reads in
				// 0.3 ms alone. random() is parallel-restricted, which keeps
				// the walk in one process (docs/QUERY-PLANS.md, issue 31).
				q = q.Where("random() >= 0")
			}
		}
		if len(f.TxHashes) > 0 {
			q = q.Where("traces.id IN (SELECT t.trace_id FROM transactions AS t WHERE t.hash IN (?))", v.list(f.TxHashes))
		}
		if len(f.MsgHashes) > 0 {
			q = q.Where(`traces.id IN (SELECT t.trace_id FROM messages AS m JOIN transactions AS t ON t.hash = m.tx_hash
				WHERE m.hash IN (?) OR m.hash_norm IN (?))`, v.list(f.MsgHashes), v.list(f.MsgHashes))
		}
		if len(f.TraceIDs) > 0 {
			q = q.Where("traces.id IN (?)", v.list(f.TraceIDs))
		}
		if f.McSeqno != nil {
			q = q.Where("traces.complete AND (SELECT max(t.mc_seqno) FROM transactions AS t WHERE t.trace_id = traces.id) = ?", v.add(int64(*f.McSeqno)))
		}
		byUtime := f.StartUtime != nil || f.EndUtime != nil
		if f.StartUtime != nil {
			q = q.Where("traces.end_utime >= ?", v.add(*f.StartUtime))
		}
		if f.EndUtime != nil {
			q = q.Where("traces.end_utime <= ?", v.add(*f.EndUtime))
		}
		if f.StartLt != nil {
			q = q.Where("traces.end_lt >= ?", v.add(int64(*f.StartLt)))
		}
		if f.EndLt != nil {
			q = q.Where("traces.end_lt <= ?", v.add(int64(*f.EndLt)))
		}
		if byUtime {
			q = q.OrderExpr(fmt.Sprintf("traces.end_utime %s, traces.id %s", dir, dir))
		} else {
			q = q.OrderExpr(fmt.Sprintf("traces.end_lt %s, traces.id %s", dir, dir))
		}
		return s.scanPage(ctx, db, q, v, f.Limit, f.Offset, &rows)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	out := make([]StoredTrace, len(rows))
	ids := make([]string, len(rows))
	byID := map[string]*StoredTrace{}
	// The page's lt range bounds its transactions' reads to the
	// partitions that hold them.
	var from, to uint64
	for i, r := range rows {
		if i == 0 || uint64(r.StartLt) < from {
			from = uint64(r.StartLt)
		}
		to = max(to, uint64(r.EndLt))
		out[i] = StoredTrace{ID: r.ID, StartLt: uint64(r.StartLt), EndLt: uint64(r.EndLt),
			StartUtime: uint32(r.StartUtime), EndUtime: uint32(r.EndUtime), Complete: r.Complete}
		ids[i] = r.ID
		byID[r.ID] = &out[i]
	}
	if len(ids) == 0 {
		return out, nil
	}
	var txRows []txRow
	err = s.read(func(db *bun.DB) (err error) {
		txRows, err = s.traceTransactions(ctx, db, ids, int64(from), int64(to))
		return err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	txs, err := s.withMessages(ctx, txRows, f.Messages)
	if err != nil {
		return nil, err
	}
	for _, t := range txs {
		if st := byID[t.TraceID.Base64()]; st != nil {
			st.Transactions = append(st.Transactions, t)
		}
	}
	return out, nil
}

// traceTransactions reads the transactions of the traces ids, all within
// the lts from..to (the bound prunes the lt partitions), in lt order, at
// most maxTraceTransactions. On Postgres through a statement kept prepared
// (the ids as one array), parsed once per connection; Postgres still plans
// it per value when that pays (a narrow lt bound makes the lt index the
// better path), and either plan reads a page's few traces cheaply
// (docs/QUERY-PLANS.md, seventeenth session).
func (s *Store) traceTransactions(ctx context.Context, db *bun.DB, ids []string, from, to int64) ([]txRow, error) {
	var rows []txRow
	q := db.NewSelect().Model(&rows).OrderExpr("transactions.lt ASC, transactions.account")
	if !s.IsPostgres() {
		err := scanQuery(ctx, db, q.Where("transactions.trace_id IN (?)", bun.In(ids)).
			Where("transactions.lt >= ? AND transactions.lt <= ?", from, to).Limit(maxTraceTransactions), &rows)
		return rows, err
	}
	text, err := sqlText(db, q.Where("transactions.trace_id = ANY($1) AND transactions.lt >= $2 AND transactions.lt <= $3"))
	if err != nil {
		return nil, err
	}
	err = s.scanPrepared(ctx, db, text+" LIMIT "+strconv.Itoa(maxTraceTransactions), []any{textArray(ids), from, to}, &rows)
	return rows, err
}
