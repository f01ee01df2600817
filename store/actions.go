package store

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// ActionFilter is a validated /api/v3/actions query. Empty fields do not
// filter. Validation and defaults belong to the caller (resolvers).
type ActionFilter struct {
	ActionIDs    []string
	TraceIDs     []string // standard base64
	TxHashes     []string // standard base64
	TxLt         *uint64
	MsgHashes    []string // standard base64: a message's hash or normalized hash
	Account      string   // raw upper-case
	Types        []string
	ExcludeTypes []string
	StartUtime   *uint32 // action.start_utime >= StartUtime
	EndUtime     *uint32 // action.end_utime <= EndUtime
	StartLt      *uint64 // action.start_lt >= StartLt
	EndLt        *uint64 // action.end_lt <= EndLt
	McSeqno      *uint32 // the trace ended in this masterchain block
	// WatchAccounts and WatchExtNorms are a stream's watch set (package
	// notify): an action passes when one of WatchAccounts (raw upper-case)
	// takes part in it, or its trace's external message has one of
	// WatchExtNorms (standard base64 TEP-467 normalized hashes) as its
	// normalized hash. Either list alone restricts; both widen each other.
	// Only ActionsAfter (the stream's replay) reads them.
	WatchAccounts []string
	WatchExtNorms []string
	// Nested says which nested actions (the steps of another action,
	// chain.Action.ParentActionID) the query returns; the zero value none.
	Nested NestedRule
	// After continues a keyset page after this sort key (exclusive), in
	// the direction of Asc; Offset still applies after it.
	After  *ActionKey
	Limit  int
	Offset int
	Asc    bool

	// readWindow: the filter is a small closed time window (smallWindow),
	// read whole and sorted rather than walked in order.
	readWindow bool
}

// NestedRule is toncenter's rule for child actions: a child is hidden when
// any of its ancestors' types is among the client's supported types, and
// supported defaults to every type, so by default no child is shown. The
// zero value is that default (only top-level actions); Show shows the
// children except those with an ancestor of a type in HiddenUnder (our
// type names), which is what a client pinned to supported_action_types
// sees: the older steps of a type it cannot show.
type NestedRule struct {
	Show        bool
	HiddenUnder []string
}

// Shows tells whether an action with these ancestors (nearest first; none
// for a top-level action) passes the rule: the in-memory reading of
// applyNested, for the live stream (package notify).
func (r NestedRule) Shows(ancestors []string) bool {
	if len(ancestors) == 0 {
		return true
	}
	if !r.Show {
		return false
	}
	for _, a := range ancestors {
		if slices.Contains(r.HiddenUnder, a) {
			return false
		}
	}
	return true
}

// applyNested adds f's nested rule on the column ancestors (space-separated
// type names) that both action tables carry. The zero rule is a plain
// equality; each hidden type is one NOT LIKE on the list padded with
// spaces, the type's name a parameter with LIKE's wildcards escaped.
func applyNested(q *bun.SelectQuery, f ActionFilter, v *params, p string) {
	if !f.Nested.Show {
		q.Where(p + "ancestors = ''")
		return
	}
	for _, t := range f.Nested.HiddenUnder {
		q.Where("(' ' || "+p+"ancestors || ' ') NOT LIKE ? ESCAPE '!'", v.add("% "+likeEscaper.Replace(t)+" %"))
	}
}

// likeEscaper escapes LIKE's wildcards (and its escape character, '!').
var likeEscaper = strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")

// ActionKey is an action's place in the sort order.
type ActionKey struct {
	EndLt    uint64
	ActionID string
}

// actionColumns are the columns ListActions scans, in its order.
const actionColumns = `a.action_id, a.trace_id, a.tx_hash, a.type, a.status, a.value, a.start_lt, a.start_utime,
	a.end_lt, a.end_utime, a.tx_hashes, a.trace_end_lt, a.trace_end_utime, a.trace_external_hash_norm,
	a.trace_external_hash, a.mc_seqno, a.addresses, a.accounts, a.parent_action_id, a.ancestors`

// ExplainActions returns the database's plan for the statement that finds
// the page of f (EXPLAIN ANALYZE on Postgres), for the performance docs
// and for operators.
func (s *Store) ExplainActions(ctx context.Context, f ActionFilter) (string, error) {
	prefix := "EXPLAIN QUERY PLAN "
	if s.IsPostgres() {
		prefix = "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
	}
	var lines []string
	var err error
	if f.readWindow, err = s.smallWindow(ctx, s.db, f); err != nil {
		return "", err
	}
	// The statement whose plan depends on the filter: on Postgres the
	// page's keys (pgPage; its second statement reads them by exact key),
	// on SQLite the deferred join.
	var query string
	if s.IsPostgres() {
		query, err = s.pageKeysSQL(f, inlineParams(s.db))
	} else {
		query, err = sqlText(s.db, s.actionsQuery(f, inlineParams(s.db)))
	}
	if err != nil {
		return "", err
	}
	r, err := s.db.QueryContext(ctx, prefix+query)
	if err != nil {
		return "", err
	}
	defer r.Close()
	cols, _ := r.Columns()
	for r.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return "", err
		}
		lines = append(lines, fmt.Sprint(vals[len(vals)-1]))
	}
	return strings.Join(lines, "\n"), r.Err()
}

// actionsQuery is a deferred join: the inner query finds the page's ids
// walking an index in order (skipping offset rows there, mostly index-only),
// and only the page's rows are then read from actions. With an account
// filter the inner query walks action_accounts, which carries the sort key
// and the type and time columns, so a hot account's page comes straight off
// the (account[, type], end_lt, action_id) index. The join names the
// page's end_lts too: on Postgres, where actions is partitioned by end_lt,
// each row is then looked up in its own partition only.
func (s *Store) actionsQuery(f ActionFilter, v *params) *bun.SelectQuery {
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	// LIMIT and OFFSET are parameters too (bun's Limit would write them
	// into the text): paging on does not make a new statement per offset.
	q := s.db.NewSelect().TableExpr("actions AS a").ColumnExpr(actionColumns).
		Join("JOIN (? LIMIT ? OFFSET ?) AS p ON p.action_id = a.action_id AND p.end_lt = a.end_lt",
			s.pageKeysQuery(f, v), v.add(int64(f.Limit)), v.add(int64(f.Offset))).
		OrderExpr("p.end_lt" + dir).OrderExpr("p.action_id" + dir)
	applyLtBounds(q, f, v, "a.")
	return q
}

// pageKeysQuery finds the keys (action_id, end_lt) of the page's actions
// in order, without LIMIT and OFFSET: the inner query of actionsQuery, and
// on Postgres the first statement of a page (page.go).
func (s *Store) pageKeysQuery(f ActionFilter, v *params) *bun.SelectQuery {
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	page := s.db.NewSelect()
	if f.Account != "" {
		page.TableExpr("action_accounts AS aa").ColumnExpr("aa.action_id, aa.end_lt").
			Where("aa.account = ?", v.add(f.Account))
		applyTypeTime(page, f, v, "aa.")
		applyIDs(page, f, v, "aa.")
		if len(f.TraceIDs) > 0 {
			page.Where("aa.action_id IN (SELECT action_id FROM actions WHERE trace_id IN (?))", v.list(f.TraceIDs))
		}
		if f.McSeqno != nil {
			page.Where("aa.action_id IN (SELECT action_id FROM actions WHERE mc_seqno = ?)", v.add(int64(*f.McSeqno)))
		}
		applyAfter(page, f, v, "aa.")
		page.OrderExpr("aa.end_lt" + dir).OrderExpr("aa.action_id" + dir)
	} else {
		page.TableExpr("actions AS a").ColumnExpr("a.action_id, a.end_lt")
		applyTypeTime(page, f, v, "a.")
		applyIDs(page, f, v, "a.")
		if len(f.TraceIDs) > 0 {
			page.Where("a.trace_id IN (?)", v.list(f.TraceIDs))
		}
		if f.McSeqno != nil {
			page.Where("a.mc_seqno = ?", v.add(int64(*f.McSeqno)))
		}
		applyAfter(page, f, v, "a.")
		if f.readWindow {
			// "+ 0" keeps the planner off actions_order, whose walk from
			// the head it wrongly thinks meets the window at once.
			page.OrderExpr("a.end_lt + 0" + dir).OrderExpr("a.action_id" + dir)
		} else {
			page.OrderExpr("a.end_lt" + dir).OrderExpr("a.action_id" + dir)
		}
	}
	return page
}

// applyLtBounds bounds end_lt by what the filter implies of it (the page's
// rows meet these bounds already). On the outer query of the deferred join
// they let Postgres leave the partitions outside them out of the plan
// rather than prune them at run time: planning time grows with the
// partitions a plan lists.
func applyLtBounds(q *bun.SelectQuery, f ActionFilter, v *params, p string) {
	if f.StartLt != nil {
		q.Where(p+"end_lt >= ?", v.add(int64(*f.StartLt)))
	}
	if f.EndLt != nil {
		q.Where(p+"end_lt <= ?", v.add(int64(*f.EndLt)))
	}
	if f.After != nil {
		op := "<="
		if f.Asc {
			op = ">="
		}
		q.Where(p+"end_lt "+op+" ?", v.add(int64(f.After.EndLt)))
	}
}

// windowProbe is the most actions a time window may end with to be read
// whole: counting that many on the index takes ~3 ms, reading and sorting
// them ~40 ms, where walking from the head to a window hours back took
// 190-440 ms on 300,000 actions (docs/QUERY-PLANS.md).
const windowProbe = 20_000

// smallWindow tells whether f is narrowed only by a closed time window
// (start_utime and end_utime, no account or id) that ends at most
// windowProbe actions. Such a page is best read through the utime indexes
// and sorted; but the planner, taking time and logical time for
// independent, walks actions_order from the newest action, filtering its
// way back to the window: a one-hour window a few hours old read 140,000
// rows of a 300,000-row table. (Windows of a few thousand rows it reads
// through the indexes by itself.) It cannot know better (extended statistics do not
// cover ranges), so the window is counted first on the end_utime index,
// which every action of the window is in (end_utime >= start_utime >=
// start), stopping past windowProbe. A larger window, or one near the head,
// keeps the ordered walk, which then finds its rows soon.
func (s *Store) smallWindow(ctx context.Context, db *bun.DB, f ActionFilter) (bool, error) {
	v := newParams(db)
	q, ok := windowProbeSQL(f, v)
	if !ok {
		return false, nil
	}
	rows, err := perValue(ctx, db, q, v.vals)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	return n <= windowProbe, err
}

// windowProbeSQL is smallWindow's count; ok is false for a filter that is
// not a closed time window alone.
func windowProbeSQL(f ActionFilter, v *params) (string, bool) {
	if f.StartUtime == nil || f.EndUtime == nil || f.Account != "" || len(f.ActionIDs) > 0 || len(f.TraceIDs) > 0 ||
		len(f.TxHashes) > 0 || f.TxLt != nil || len(f.MsgHashes) > 0 || f.McSeqno != nil {
		return "", false
	}
	return "SELECT count(*) FROM (SELECT 1 FROM actions WHERE end_utime BETWEEN " + string(v.add(int64(*f.StartUtime))) +
		" AND " + string(v.add(int64(*f.EndUtime))) + " LIMIT " + string(v.add(int64(windowProbe+1))) + ") AS w", true
}

// applyIDs adds the filters by action id and by transaction.
func applyIDs(q *bun.SelectQuery, f ActionFilter, v *params, p string) {
	if len(f.ActionIDs) > 0 {
		q.Where(p+"action_id IN (?)", v.list(f.ActionIDs))
	}
	if len(f.TxHashes) > 0 {
		q.Where(p+"action_id IN (SELECT action_id FROM action_transactions WHERE tx_hash IN (?))", v.list(f.TxHashes))
	}
	if f.TxLt != nil {
		q.Where(p+"action_id IN (SELECT action_id FROM action_transactions WHERE tx_lt = ?)", v.add(int64(*f.TxLt)))
	}
	if len(f.MsgHashes) > 0 {
		// Messages are found by either hash through their own indexes, then
		// the actions of the transactions that carry them.
		q.Where(p+"action_id IN (SELECT at.action_id FROM action_transactions AS at WHERE at.tx_hash IN ("+
			"SELECT m.tx_hash FROM messages AS m WHERE m.hash IN (?) UNION SELECT m.tx_hash FROM messages AS m WHERE m.hash_norm IN (?)))",
			v.list(f.MsgHashes), v.list(f.MsgHashes))
	}
}

// applyAfter starts a keyset page after the given sort key.
func applyAfter(q *bun.SelectQuery, f ActionFilter, v *params, p string) {
	if f.After == nil {
		return
	}
	op := "<"
	if f.Asc {
		op = ">"
	}
	q.Where("("+p+"end_lt, "+p+"action_id) "+op+" (?, ?)", v.add(int64(f.After.EndLt)), v.add(f.After.ActionID))
	// Implied by the row comparison, but only a plain bound on the
	// partition key lets Postgres skip the partitions past the cursor.
	q.Where(p+"end_lt "+op+"= ?", v.add(int64(f.After.EndLt)))
}

// applyTypeTime adds the type, nested, time and lt filters; both tables
// carry them.
func applyTypeTime(q *bun.SelectQuery, f ActionFilter, v *params, p string) {
	applyNested(q, f, v, p)
	if len(f.Types) > 0 {
		q.Where(p+"type IN (?)", v.list(f.Types))
	}
	if len(f.ExcludeTypes) > 0 {
		q.Where(p+"type NOT IN (?)", v.list(f.ExcludeTypes))
	}
	if f.StartLt != nil {
		q.Where(p+"start_lt >= ?", v.add(int64(*f.StartLt)))
		// Changes no answer (an action ends at or after it starts) and
		// bounds the partition key, so older partitions are skipped.
		q.Where(p+"end_lt >= ?", v.add(int64(*f.StartLt)))
	}
	if f.EndLt != nil {
		q.Where(p+"end_lt <= ?", v.add(int64(*f.EndLt)))
	}
	// Each time bound is also put on the other column, which changes no
	// answer (an action's start_utime is one of its transactions' times and
	// its end_utime their maximum, so start_utime <= end_utime) but closes
	// both utime indexes' ranges: a window is then read from either index
	// without running on to the head of the table.
	if f.StartUtime != nil {
		q.Where(p+"start_utime >= ?", v.add(int64(*f.StartUtime)))
		q.Where(p+"end_utime >= ?", v.add(int64(*f.StartUtime)))
	}
	if f.EndUtime != nil {
		q.Where(p+"end_utime <= ?", v.add(int64(*f.EndUtime)))
		q.Where(p+"start_utime <= ?", v.add(int64(*f.EndUtime)))
	}
}

// Participant is an account taking part in an action, with its roles.
type Participant struct {
	Account string
	Roles   []string
}

// ActionRef names an action with its partition key (end_lt), so that its
// links are read from its own partition rather than probed for in every
// one.
type ActionRef struct {
	ID    string
	EndLt uint64
}

// TxRef names a transaction with the lt range of the action that links to
// it (the transaction's lt lies in [StartLt, EndLt]): transactions are
// partitioned by lt.
type TxRef struct {
	Hash           string
	StartLt, EndLt uint64
}

// RefOf names the action a.
func RefOf(a *chain.Action) ActionRef { return ActionRef{ID: a.ActionID, EndLt: a.EndLt} }

// TxRefsOf names the transactions of a, with its lt range.
func TxRefsOf(a *chain.Action) []TxRef {
	refs := make([]TxRef, len(a.Transactions))
	for i, h := range a.Transactions {
		refs[i] = TxRef{Hash: h, StartLt: a.StartLt, EndLt: a.EndLt}
	}
	return refs
}

// ltSpan is the smallest [lo, hi] holding every range given.
func ltSpan(n int, at func(i int) (lo, hi uint64)) (int64, int64) {
	lo, hi := uint64(math.MaxInt64), uint64(0)
	for i := 0; i < n; i++ {
		l, h := at(i)
		lo, hi = min(lo, l), max(hi, h)
	}
	return int64(min(lo, math.MaxInt64)), int64(min(hi, math.MaxInt64))
}

// linkRef is the key of a per-link read (a trace, a transaction, an
// action) with the lt range its rows lie in.
type linkRef interface {
	linkKey() string
	ltRange() (lo, hi uint64)
}

func (r ActionRef) linkKey() string            { return r.ID }
func (r ActionRef) ltRange() (uint64, uint64)  { return r.EndLt, r.EndLt }
func (r TraceRef) linkKey() string             { return r.ID }
func (r TraceRef) ltRange() (uint64, uint64)   { return r.StartLt, r.EndLt }
func (r TxRef) linkKey() string                { return r.Hash }
func (r TxRef) ltRange() (uint64, uint64)      { return r.StartLt, r.EndLt }
func (r ActionSpan) linkKey() string           { return r.ID }
func (r ActionSpan) ltRange() (uint64, uint64) { return r.StartLt, r.EndLt }

// keysAndSpan lists the refs' keys and the lt range that holds them all
// (ltSpan), which bounds the read to the partitions they lie in.
func keysAndSpan[T linkRef](refs []T) ([]string, int64, int64) {
	keys := make([]string, len(refs))
	for i, r := range refs {
		keys[i] = r.linkKey()
	}
	lo, hi := ltSpan(len(refs), func(i int) (uint64, uint64) { return refs[i].ltRange() })
	return keys, lo, hi
}

// Participants returns, per action id, the accounts taking part in it,
// sorted by address. The actions' end_lts bound the read to the
// partitions that hold them.
func (s *Store) Participants(ctx context.Context, refs []ActionRef) (map[string][]Participant, error) {
	out := make(map[string][]Participant, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	var rows []actionAccountRow
	if err := s.read(func(db *bun.DB) error {
		return participantsQuery(db, refs, &rows).Scan(ctx)
	}); err != nil {
		return nil, unavailable(err)
	}
	for _, r := range rows {
		out[r.ActionID] = append(out[r.ActionID], Participant{Account: r.Account, Roles: strings.Split(r.Roles, ",")})
	}
	return out, nil
}

// Transactions returns the stored transactions named, by hash, read from
// the partitions of their lt ranges. With withMessages their messages are
// read too, in one more statement for all of them (messages are not
// partitioned; their primary key starts with tx_hash).
func (s *Store) Transactions(ctx context.Context, refs []TxRef, withMessages bool) (map[string]*chain.Transaction, error) {
	out := make(map[string]*chain.Transaction, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	var rows []txRow
	var msgs []msgRow
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		if err := scanQuery(ctx, db, transactionsQuery(db, refs, &rows), &rows); err != nil || !withMessages {
			return err
		}
		var err error
		msgs, err = s.messagesOf(ctx, db, txHashes(rows))
		return err
	}); err != nil {
		return nil, unavailable(err)
	}
	for i := range rows {
		out[rows[i].Hash] = rows[i].summary()
	}
	for i := range msgs {
		addMessage(out[msgs[i].TxHash], &msgs[i])
	}
	return out, nil
}

func participantsQuery(db *bun.DB, refs []ActionRef, rows *[]actionAccountRow) *bun.SelectQuery {
	ids, lo, hi := keysAndSpan(refs)
	return db.NewSelect().Model(rows).Column("account", "action_id", "roles").
		Where("action_id IN (?)", bun.In(ids)).Where("end_lt BETWEEN ? AND ?", lo, hi).
		OrderExpr("action_id, account")
}

func transactionsQuery(db *bun.DB, refs []TxRef, rows *[]txRow) *bun.SelectQuery {
	hashes, lo, hi := keysAndSpan(refs)
	return db.NewSelect().Model(rows).ExcludeColumn("boc").Where("hash IN (?)", bun.In(hashes)).
		Where("lt BETWEEN ? AND ?", lo, hi)
}
