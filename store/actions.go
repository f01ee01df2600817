package store

import (
	"context"

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

// ListActions returns one page ordered by (end_lt, action_id).
//
// With an account filter the query walks action_accounts, which carries
// the sort key and the filterable columns, so Postgres reads the page
// straight off the (account[, type], end_lt, action_id) index; otherwise it
// walks actions by (end_lt, action_id), (type, ...) or (trace_id, ...).
func (s *Store) ListActions(ctx context.Context, f ActionFilter) ([]*chain.Action, error) {
	var rows []actionRow
	var q *bun.SelectQuery
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	if f.Account != "" {
		q = s.db.NewSelect().Model(&rows).
			ColumnExpr("a.*").
			Join("JOIN action_accounts AS aa ON aa.action_id = a.action_id AND aa.account = ?", f.Account).
			ModelTableExpr("actions AS a")
		applyCommon(q, f, "a.", false)
		if len(f.Types) > 0 {
			q.Where("aa.type IN (?)", bun.In(f.Types))
		}
		if f.StartUtime != nil {
			q.Where("aa.start_utime >= ?", int64(*f.StartUtime))
		}
		if f.EndUtime != nil {
			q.Where("aa.end_utime <= ?", int64(*f.EndUtime))
		}
		q.OrderExpr("aa.end_lt" + dir).OrderExpr("aa.action_id" + dir)
	} else {
		q = s.db.NewSelect().Model(&rows).ModelTableExpr("actions AS a").ColumnExpr("a.*")
		applyCommon(q, f, "a.", true)
		q.OrderExpr("a.end_lt" + dir).OrderExpr("a.action_id" + dir)
	}
	q.Limit(int64(f.Limit)).Offset(int64(f.Offset))
	if err := q.Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	out := make([]*chain.Action, len(rows))
	for i := range rows {
		out[i] = rows[i].toChain()
	}
	return out, nil
}

// applyCommon adds the filters that are the same whichever table drives the
// query; withActionCols adds those that live on actions when the account
// link table does not already carry them.
func applyCommon(q *bun.SelectQuery, f ActionFilter, p string, withActionCols bool) {
	if len(f.ActionIDs) > 0 {
		q.Where(p+"action_id IN (?)", bun.In(f.ActionIDs))
	}
	if len(f.TraceIDs) > 0 {
		q.Where(p+"trace_id IN (?)", bun.In(f.TraceIDs))
	}
	if len(f.TxHashes) > 0 {
		q.Where(p+"action_id IN (SELECT action_id FROM action_transactions WHERE tx_hash IN (?))", bun.In(f.TxHashes))
	}
	if f.TxLt != nil {
		q.Where(p+"action_id IN (SELECT action_id FROM action_transactions WHERE tx_lt = ?)", int64(*f.TxLt))
	}
	if !withActionCols {
		return
	}
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
