package store

import (
	"context"
	"database/sql"
	"math"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// The reads behind the graph's trace links (Action.trace, Trace.actions,
// Trace.transactions, Transaction.actions). Each takes every parent of one
// response at once (the resolvers' loaders collect them), so a page costs
// one statement per link whatever its size, and each bounds its rows by the
// parents' logical times: the tables are partitioned by lt on Postgres,
// and a bound on the key lets the planner leave the other partitions out.

// TraceRef names a trace with its lt range: every transaction and action of
// the trace lies in [StartLt, EndLt].
type TraceRef struct {
	ID             string
	StartLt, EndLt uint64
}

// RefOfTrace names the trace t.
func RefOfTrace(t *chain.TraceInfo) TraceRef {
	return TraceRef{ID: t.TraceID, StartLt: t.StartLt, EndLt: t.EndLt}
}

// traceInfoRow is a traces row with the normalized hash of the external
// message that started it, which only the trace's actions keep.
type traceInfoRow struct {
	ID               string  `bun:"id"`
	StartLt          int64   `bun:"start_lt"`
	EndLt            int64   `bun:"end_lt"`
	StartUtime       int64   `bun:"start_utime"`
	EndUtime         int64   `bun:"end_utime"`
	Complete         bool    `bun:"complete"`
	Transactions     int     `bun:"transactions"`
	ExternalHashNorm *string `bun:"external_hash_norm"`
}

// Traces returns the stored traces named (standard base64 ids), by id; an
// unknown id is absent. The external hash comes from one action of the
// trace, found on actions_trace_order within the trace's lt range.
func (s *Store) Traces(ctx context.Context, ids []string) (map[string]*chain.TraceInfo, error) {
	out := make(map[string]*chain.TraceInfo, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []traceInfoRow
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewRaw(`SELECT t.id, t.start_lt, t.end_lt, t.start_utime, t.end_utime, t.complete, t.transactions,
			(SELECT a.trace_external_hash_norm FROM actions AS a WHERE a.trace_id = t.id
				AND a.end_lt BETWEEN t.start_lt AND t.end_lt AND a.trace_external_hash_norm IS NOT NULL LIMIT 1) AS external_hash_norm
			FROM traces AS t WHERE t.id IN (?)`, bun.In(ids)).Scan(ctx, &rows)
	}); err != nil {
		return nil, unavailable(err)
	}
	for _, r := range rows {
		out[r.ID] = &chain.TraceInfo{
			TraceID: r.ID, StartLt: uint64(r.StartLt), EndLt: uint64(r.EndLt),
			StartUtime: uint32(r.StartUtime), EndUtime: uint32(r.EndUtime), Complete: r.Complete,
			TransactionsCount: r.Transactions, ExternalHashNorm: r.ExternalHashNorm,
		}
	}
	return out, nil
}

// firstActionsPer reads, per value of link, the first max actions in page
// order (end_lt, action_id) among the rows of from that where keeps (args
// are where's values). The window function caps each link apart: a LIMIT
// would cap them together.
func (s *Store) firstActionsPer(ctx context.Context, link, from, where string, max int, args ...any) (map[string][]*chain.Action, error) {
	return s.linkedActions(ctx, `SELECT w.* FROM (SELECT `+link+` AS link, `+actionColumns+`,
			row_number() OVER (PARTITION BY `+link+` ORDER BY a.end_lt, a.action_id) AS rn
		FROM `+from+` WHERE `+where+`) AS w
		WHERE w.rn <= ? ORDER BY w.end_lt, w.action_id`, append(args, max)...)
}

// TraceActions returns, per trace id, the first max top-level actions of
// each trace in page order (end_lt, action_id), read on
// actions_trace_order; nested actions are left out, as a page leaves them
// out by default (NestedRule), and are reached through their parents.
func (s *Store) TraceActions(ctx context.Context, refs []TraceRef, max int) (map[string][]*chain.Action, error) {
	if len(refs) == 0 {
		return map[string][]*chain.Action{}, nil
	}
	ids, lo, hi := keysAndSpan(refs)
	return s.firstActionsPer(ctx, "a.trace_id", "actions AS a",
		"a.trace_id IN (?) AND a.end_lt BETWEEN ? AND ? AND a.ancestors = ''", max, bun.In(ids), lo, hi)
}

// TraceAllActions is TraceActions with the nested actions too: every
// action of each trace, at most max, in page order. A stream's trace event
// reads it once for all its subscribers, each of whom sees the nested ones
// its supported_action_types show (NestedRule), as toncenter's
// TraceNotification carries every action of the trace.
func (s *Store) TraceAllActions(ctx context.Context, refs []TraceRef, max int) (map[string][]*chain.Action, error) {
	if len(refs) == 0 {
		return map[string][]*chain.Action{}, nil
	}
	ids, lo, hi := keysAndSpan(refs)
	return s.firstActionsPer(ctx, "a.trace_id", "actions AS a",
		"a.trace_id IN (?) AND a.end_lt BETWEEN ? AND ?", max, bun.In(ids), lo, hi)
}

// TransactionActions returns, per transaction hash, the top-level actions
// that include it (their transactions list names it), in page order, at
// most max each (nested ones are left out, as in TraceActions). A ref's lt
// range is the transaction's own lt: action_transactions
// is read on its (tx_hash) index in the partitions of those lts, and an
// action that includes a transaction ends at or after it.
func (s *Store) TransactionActions(ctx context.Context, refs []TxRef, max int) (map[string][]*chain.Action, error) {
	if len(refs) == 0 {
		return map[string][]*chain.Action{}, nil
	}
	hashes, lo, hi := keysAndSpan(refs)
	return s.firstActionsPer(ctx, "at.tx_hash", "action_transactions AS at JOIN actions AS a ON a.action_id = at.action_id",
		"at.tx_hash IN (?) AND at.tx_lt BETWEEN ? AND ? AND a.end_lt >= ? AND a.ancestors = ''", max, bun.In(hashes), lo, hi, lo)
}

// ActionSpan names an action with an lt range its related actions lie in:
// for its children, its own [StartLt, trace end] (a step's transactions
// are among its parent's, and all are in the trace); for its parent, the
// child's [EndLt, trace end].
type ActionSpan struct {
	ID             string
	StartLt, EndLt uint64
}

// ChildrenSpanOf is the span of a's children.
func ChildrenSpanOf(a *chain.Action) ActionSpan {
	return ActionSpan{ID: a.ActionID, StartLt: a.StartLt, EndLt: traceEnd(a)}
}

// ParentSpanOf is the span of a's parent (a.ParentActionID, not "").
func ParentSpanOf(a *chain.Action) ActionSpan {
	return ActionSpan{ID: a.ParentActionID, StartLt: a.EndLt, EndLt: traceEnd(a)}
}

// traceEnd is the end of a's trace, as far as a knows it: an action
// written before trace_end_lt was kept (0) or a preview's bounds nothing.
func traceEnd(a *chain.Action) uint64 {
	if a.TraceEndLt < a.EndLt {
		return math.MaxInt64
	}
	return a.TraceEndLt
}

// ChildActions returns, per parent action id, its nested actions (those
// whose parent_action_id names it: its direct steps) in page order
// (end_lt, action_id), at most max each, read on actions_children. Every
// child is returned whatever a page's NestedRule: the caller asked for the
// steps of this action.
func (s *Store) ChildActions(ctx context.Context, parents []ActionSpan, max int) (map[string][]*chain.Action, error) {
	if len(parents) == 0 {
		return map[string][]*chain.Action{}, nil
	}
	ids, lo, hi := keysAndSpan(parents)
	// parent_action_id <> '' names the partial index's predicate, which a
	// planner need not derive from a long IN list.
	return s.firstActionsPer(ctx, "a.parent_action_id", "actions AS a",
		"a.parent_action_id IN (?) AND a.parent_action_id <> '' AND a.end_lt BETWEEN ? AND ?", max, bun.In(ids), lo, hi)
}

// ActionsByID returns the stored actions named, by id, nested or not (a
// by-id read, not a page: no NestedRule applies); an unknown id is absent.
// The spans bound the read to the partitions that can hold them.
func (s *Store) ActionsByID(ctx context.Context, refs []ActionSpan) (map[string]*chain.Action, error) {
	out := make(map[string]*chain.Action, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	ids, lo, hi := keysAndSpan(refs)
	linked, err := s.linkedActions(ctx, `SELECT a.action_id AS link, `+actionColumns+`, 1 AS rn
		FROM actions AS a WHERE a.action_id IN (?) AND a.end_lt BETWEEN ? AND ?`, bun.In(ids), lo, hi)
	if err != nil {
		return nil, err
	}
	for id, as := range linked {
		out[id] = as[0]
	}
	return out, nil
}

// linkedActions runs a query whose rows are the parent's key (link), then
// actionColumns, then rn, and groups the actions by parent, in the rows'
// order. Accounts are dropped, as a page drops them unless asked.
func (s *Store) linkedActions(ctx context.Context, query string, args ...any) (map[string][]*chain.Action, error) {
	out := map[string][]*chain.Action{}
	if err := s.read(func(db *bun.DB) error {
		clear(out)
		rows, err := db.QueryContext(ctx, query, args...) // bun formats the ? placeholders
		if err != nil {
			return err
		}
		return scanLinked(rows, out)
	}); err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

func scanLinked(rows *sql.Rows, out map[string][]*chain.Action) error {
	defer rows.Close()
	var key string
	var r actionRow
	var rn nullInt
	dest := append(append([]any{(*nullString)(&key)}, r.fields()...), &rn)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		a := r.toChain()
		a.Accounts = nil
		out[key] = append(out[key], a)
	}
	return rows.Err()
}

// TransactionsOfTraces returns, per trace id, the first max transactions of
// each trace in lt order, read on transactions_trace within the traces' lt
// range; with withMessages their messages too, in one more statement.
func (s *Store) TransactionsOfTraces(ctx context.Context, refs []TraceRef, withMessages bool, max int) (map[string][]*chain.Transaction, error) {
	out := make(map[string][]*chain.Transaction, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	ids, lo, hi := keysAndSpan(refs)
	var rows []txRow
	var msgs []msgRow
	if err := s.read(func(db *bun.DB) error {
		inner := db.NewSelect().Model((*txRow)(nil)).ExcludeColumn("boc").
			ColumnExpr("row_number() OVER (PARTITION BY trace_id ORDER BY lt, hash) AS rn").
			Where("trace_id IN (?)", bun.In(ids)).Where("lt BETWEEN ? AND ?", lo, hi)
		rows = rows[:0]
		err := scanQuery(ctx, db, db.NewSelect().Model(&rows).ModelTableExpr("(?) AS transactions", inner).ExcludeColumn("boc").
			Where("rn <= ?", max).OrderExpr("lt, hash"), &rows)
		if err != nil || !withMessages {
			return err
		}
		msgs, err = s.messagesOf(ctx, db, txHashes(rows))
		return err
	}); err != nil {
		return nil, unavailable(err)
	}
	byHash := make(map[string]*chain.Transaction, len(rows))
	for i := range rows {
		tx := rows[i].summary()
		byHash[rows[i].Hash] = tx
		out[rows[i].TraceID] = append(out[rows[i].TraceID], tx)
	}
	for i := range msgs {
		addMessage(byHash[msgs[i].TxHash], &msgs[i])
	}
	return out, nil
}

// txHashes are the hashes of rows.
func txHashes(rows []txRow) []string {
	hashes := make([]string, len(rows))
	for i := range rows {
		hashes[i] = rows[i].Hash
	}
	return hashes
}

// messagesOf reads the messages of the transactions hashes in one
// statement (on messages' primary key, which starts with tx_hash), in the
// order addMessage needs.
func (s *Store) messagesOf(ctx context.Context, db *bun.DB, hashes []string) ([]msgRow, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	var msgs []msgRow
	err := s.scanByKeys(ctx, db, db.NewSelect().Model(&msgs).OrderExpr("tx_hash, direction, seq"), "tx_hash", hashes, &msgs)
	return msgs, err
}
