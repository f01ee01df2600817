package rest

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/graph/model"
)

// Actions serves GET /api/v3/actions through the GraphQL resolver.
func Actions(q graph.QueryResolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET", r.Method))
			return
		}
		filter, limit, offset, sort, err := parseActionsQuery(r.URL.Query())
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		list, err := q.Actions(r.Context(), filter, limit, offset, sort)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		writeBounded(w, r, V3, list)
	}
}

// parseActionsQuery turns query parameters into the resolver's arguments.
// Only syntax is checked here (integers, single values); meaning is checked
// by the resolver, identically for GraphQL. Unknown parameters are
// ignored, as toncenter ignores them.
func parseActionsQuery(v url.Values) (*model.ActionFilter, *int, *int, *model.SortOrder, error) {
	f := &model.ActionFilter{
		ActionID:             v["action_id"],
		TraceID:              v["trace_id"],
		TxHash:               v["tx_hash"],
		MsgHash:              v["msg_hash"],
		ActionType:           v["action_type"],
		ExcludeActionType:    v["exclude_action_type"],
		SupportedActionTypes: v["supported_action_types"],
	}
	var err error
	if f.Account, err = single(v, "account"); err != nil {
		return nil, nil, nil, nil, err
	}
	if f.TxLt, err = uintParam(v, "tx_lt", 63); err != nil {
		return nil, nil, nil, nil, err
	}
	if f.StartLt, err = uintParam(v, "start_lt", 63); err != nil {
		return nil, nil, nil, nil, err
	}
	if f.EndLt, err = uintParam(v, "end_lt", 63); err != nil {
		return nil, nil, nil, nil, err
	}
	var mc *uint64
	if mc, err = uintParam(v, "mc_seqno", 32); err != nil {
		return nil, nil, nil, nil, err
	}
	f.McSeqno = narrow32(mc)
	if f.IncludeAccounts, err = boolParam(v, "include_accounts"); err != nil {
		return nil, nil, nil, nil, err
	}
	if f.IncludeTransactions, err = boolParam(v, "include_transactions"); err != nil {
		return nil, nil, nil, nil, err
	}
	var su, eu *uint64
	if su, err = uintParam(v, "start_utime", 32); err != nil {
		return nil, nil, nil, nil, err
	}
	if eu, err = uintParam(v, "end_utime", 32); err != nil {
		return nil, nil, nil, nil, err
	}
	f.StartUtime, f.EndUtime = narrow32(su), narrow32(eu)
	limit, err := intParam(v, "limit")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	offset, err := intParam(v, "offset")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s, err := single(v, "sort")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var sort *model.SortOrder
	if s != nil {
		so := model.SortOrder(*s)
		if !so.IsValid() {
			return nil, nil, nil, nil, apperr.Field("sort", "must be asc or desc")
		}
		sort = &so
	}
	return f, limit, offset, sort, nil
}

func single(v url.Values, name string) (*string, error) {
	vals, ok := v[name]
	if !ok {
		return nil, nil
	}
	if len(vals) != 1 {
		return nil, apperr.Field(name, "given %d times; give it once", len(vals))
	}
	return &vals[0], nil
}

func uintParam(v url.Values, name string, bits int) (*uint64, error) {
	s, err := single(v, name)
	if s == nil || err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(*s, 10, bits)
	if err != nil {
		return nil, apperr.Field(name, "must be an integer from 0 to %d", uint64(1)<<bits-1)
	}
	return &n, nil
}

// boolParam accepts true/false (and 1/0), as toncenter's clients send them.
func boolParam(v url.Values, name string) (*bool, error) {
	s, err := single(v, name)
	if s == nil || err != nil {
		return nil, err
	}
	b, err := strconv.ParseBool(*s)
	if err != nil {
		return nil, apperr.Field(name, "must be true or false")
	}
	return &b, nil
}

func intParam(v url.Values, name string) (*int, error) {
	s, err := single(v, name)
	if s == nil || err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(*s, 10, 32)
	if err != nil {
		return nil, apperr.Field(name, "must be an integer")
	}
	i := int(n)
	return &i, nil
}

func narrow32(p *uint64) *uint32 {
	if p == nil {
		return nil
	}
	n := uint32(*p)
	return &n
}
