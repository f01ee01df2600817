package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// ActionFilter is a validated /api/v3/actions query. Empty fields do not
// filter. Validation and defaults belong to the caller (resolvers).
type ActionFilter struct {
	ActionIDs  []string
	TraceIDs   []string // standard base64
	TxHashes   []string // standard base64
	TxLt       *uint64
	Account    string // raw upper-case
	Types      []string
	StartUtime *uint32 // action.start_utime >= StartUtime
	EndUtime   *uint32 // action.end_utime <= EndUtime
	Limit      int
	Offset     int
	Asc        bool
}

// ListActions returns one page ordered by (end_lt, action_id); how the
// page is found is explained at actionsQuery.
func (s *Store) ListActions(ctx context.Context, f ActionFilter) ([]*chain.Action, error) {
	var rows []actionRow
	if err := s.actionsQuery(f, &rows).Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	out := make([]*chain.Action, len(rows))
	for i := range rows {
		out[i] = rows[i].toChain()
	}
	return out, nil
}

// ExplainActions returns the database's plan for a query (EXPLAIN ANALYZE
// on Postgres), for the performance docs and for operators.
func (s *Store) ExplainActions(ctx context.Context, f ActionFilter) (string, error) {
	var rows []actionRow
	prefix := "EXPLAIN QUERY PLAN "
	if s.IsPostgres() {
		prefix = "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
	}
	var lines []string
	r, err := s.db.QueryContext(ctx, prefix+s.actionsQuery(f, &rows).String())
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
// the (account[, type], end_lt, action_id) index.
func (s *Store) actionsQuery(f ActionFilter, rows *[]actionRow) *bun.SelectQuery {
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	page := s.db.NewSelect()
	if f.Account != "" {
		page.TableExpr("action_accounts AS aa").ColumnExpr("aa.action_id, aa.end_lt").
			Where("aa.account = ?", f.Account)
		applyTypeTime(page, f, "aa.")
		applyIDs(page, f, "aa.")
		if len(f.TraceIDs) > 0 {
			page.Where("aa.action_id IN (SELECT action_id FROM actions WHERE trace_id IN (?))", bun.In(f.TraceIDs))
		}
		page.OrderExpr("aa.end_lt" + dir).OrderExpr("aa.action_id" + dir)
	} else {
		page.TableExpr("actions AS a").ColumnExpr("a.action_id, a.end_lt")
		applyTypeTime(page, f, "a.")
		applyIDs(page, f, "a.")
		if len(f.TraceIDs) > 0 {
			page.Where("a.trace_id IN (?)", bun.In(f.TraceIDs))
		}
		page.OrderExpr("a.end_lt" + dir).OrderExpr("a.action_id" + dir)
	}
	page.Limit(int64(f.Limit)).Offset(int64(f.Offset))
	return s.db.NewSelect().Model(rows).ModelTableExpr("actions AS a").ColumnExpr("a.*").
		Join("JOIN (?) AS p ON p.action_id = a.action_id", page).
		OrderExpr("p.end_lt" + dir).OrderExpr("p.action_id" + dir)
}

// applyIDs adds the filters by action id and by transaction.
func applyIDs(q *bun.SelectQuery, f ActionFilter, p string) {
	if len(f.ActionIDs) > 0 {
		q.Where(p+"action_id IN (?)", bun.In(f.ActionIDs))
	}
	if len(f.TxHashes) > 0 {
		q.Where(p+"action_id IN (SELECT action_id FROM action_transactions WHERE tx_hash IN (?))", bun.In(f.TxHashes))
	}
	if f.TxLt != nil {
		q.Where(p+"action_id IN (SELECT action_id FROM action_transactions WHERE tx_lt = ?)", int64(*f.TxLt))
	}
}

// applyTypeTime adds the type and time filters; both tables carry them.
func applyTypeTime(q *bun.SelectQuery, f ActionFilter, p string) {
	if len(f.Types) > 0 {
		q.Where(p+"type IN (?)", bun.In(f.Types))
	}
	if f.StartUtime != nil {
		q.Where(p+"start_utime >= ?", int64(*f.StartUtime))
	}
	if f.EndUtime != nil {
		q.Where(p+"end_utime <= ?", int64(*f.EndUtime))
	}
}
