package rest

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// ToncenterPrefix is the switch to toncenter's dialect: every /api/v3
// route is also served below it, so a toncenter client changes only its
// base URL (https://host/toncenter/api/v3). The routes already in
// toncenter's shapes answer there as they do without it; /actions answers
// in toncenter's action shape (toncenter.Action) instead of ours, which
// stays the seed's at /api/v3/actions.
const ToncenterPrefix = "/toncenter"

// ToncenterPath tells whether a route path is served below ToncenterPrefix.
func ToncenterPath(path string) bool { return strings.HasPrefix(path, "/api/v3/") }

// tcActionsParams are the parameters of toncenter's /api/v3/actions
// (ton-index-go's handler); any other is 422.
var tcActionsParams = names([]string{"account", "tx_hash", "msg_hash", "action_id", "trace_id", "mc_seqno",
	"start_utime", "end_utime", "start_lt", "end_lt", "action_type", "exclude_action_type",
	"supported_action_types", "include_accounts", "include_transactions"}, toncenter.PageParams)

// ToncenterActions serves GET /toncenter/api/v3/actions: the stored
// actions, filtered and paged as /api/v3/actions does, in toncenter's shape;
// with include_transactions=true each also carries its stored transactions
// in toncenter's Transaction shape (transactions_full).
func ToncenterActions(res *resolvers.Resolver) http.HandlerFunc {
	q := res.Query()
	return v3Get(tcActionsParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		withTxs, err := p.Bool("include_transactions")
		if err != nil {
			return nil, err
		}
		filter, limit, offset, sort, err := parseActionsQuery(r.URL.Query())
		if err != nil {
			return nil, err
		}
		filter.IncludeTransactions = nil // ours is another shape; toncenter's is added below
		list, err := q.Actions(r.Context(), filter, limit, offset, sort)
		if err != nil {
			return nil, err
		}
		out, err := toncenter.RenderActions(list)
		if err != nil {
			return nil, apperr.Wrap(apperr.Internal, err, "a stored action does not render in toncenter's dialect")
		}
		if withTxs != nil && *withTxs {
			if err := addTransactions(r.Context(), res, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// addTransactions fills each action's transactions_full, in the order of
// its transactions, with those the store holds, and adds their addresses
// to the book.
func addTransactions(ctx context.Context, res *resolvers.Resolver, page *toncenter.ActionsResponse) error {
	var hashes []string
	for _, a := range page.Actions {
		hashes = append(hashes, a.Transactions...)
	}
	slices.Sort(hashes)
	hashes = slices.Compact(hashes)
	byHash := make(map[string]*toncenter.Transaction, len(hashes))
	for chunk := range slices.Chunk(hashes, toncenter.MaxLimit) {
		txs, book, err := res.FindTransactions(ctx, store.TxFilter{Hashes: chunk, Limit: len(chunk)})
		if err != nil {
			return err
		}
		for _, rt := range txs {
			byHash[rt.Hash] = rt
		}
		maps.Copy(page.AddressBook, book)
	}
	for _, a := range page.Actions {
		a.TransactionsFull = []*toncenter.Transaction{}
		for _, h := range a.Transactions {
			if t := byHash[h]; t != nil {
				a.TransactionsFull = append(a.TransactionsFull, t)
			}
		}
	}
	return nil
}

// traceActions reads every action of the traces, in toncenter's dialect,
// by trace id, in lt order, with the address book and metadata of their
// addresses: toncenter's include_actions (and /events, which always
// includes them). supported are toncenter's supported_action_types.
func traceActions(ctx context.Context, q graph.QueryResolver, ids, supported []string) (map[string][]*toncenter.Action, *chain.ActionList, error) {
	out := make(map[string][]*toncenter.Action, len(ids))
	all := &chain.ActionList{AddressBook: chain.AddressBook{}, Metadata: chain.Metadata{}}
	if len(ids) == 0 {
		return out, all, nil
	}
	limit, asc := toncenter.MaxLimit, model.SortOrderAsc
	for offset := 0; ; offset += limit {
		if offset > cost.MaxOffset {
			return nil, nil, apperr.Field("limit", "these traces hold more than %d actions; ask fewer traces at a time", cost.MaxOffset)
		}
		page, err := q.Actions(ctx, &model.ActionFilter{TraceID: ids, SupportedActionTypes: supported}, &limit, &offset, &asc)
		if err != nil {
			return nil, nil, err
		}
		for _, a := range page.Actions {
			ta, err := toncenter.RenderAction(a)
			if err != nil {
				return nil, nil, apperr.Wrap(apperr.Internal, err, "a stored action does not render in toncenter's dialect")
			}
			out[a.TraceID] = append(out[a.TraceID], ta)
		}
		maps.Copy(all.AddressBook, page.AddressBook)
		maps.Copy(all.Metadata, page.Metadata)
		if len(page.Actions) < limit {
			return out, all, nil
		}
	}
}
