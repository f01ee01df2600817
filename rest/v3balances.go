package rest

import (
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// BalanceChanges serves GET /api/v3/balanceChanges: what a stored trace
// (trace_id) or one of its actions (action_id) moved, in toncenter's
// shape (resolvers.BalanceChanges says how it is counted).
func BalanceChanges(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get([]string{"trace_id", "action_id"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		trace, err := p.Hash("trace_id")
		if err != nil {
			return nil, err
		}
		action, err := p.Str("action_id")
		if err != nil {
			return nil, err
		}
		switch {
		case trace == nil && action == nil:
			return nil, apperr.Field("trace_id", "required (or action_id)")
		case trace != nil && action != nil:
			return nil, apperr.Field("action_id", "give trace_id or action_id, not both")
		}
		var traceID, actionID string
		if trace != nil {
			traceID = *trace
		} else {
			actionID = *action
		}
		c, err := res.BalanceChanges(r.Context(), traceID, actionID)
		if err != nil {
			return nil, err
		}
		return toncenter.RenderBalanceChanges(c), nil
	})
}
