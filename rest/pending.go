package rest

import (
	"cmp"
	"maps"
	"net/http"
	"slices"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/pending"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// pendingParams are the parameters of toncenter's /api/v3/pendingTraces;
// pendingActions also takes include_transactions.
var pendingParams = []string{"account", "ext_msg_hash", "supported_action_types"}

// pendingFilter reads the parameters both routes share.
func pendingFilter(p *toncenter.Params) (resolvers.PendingFilter, error) {
	var f resolvers.PendingFilter
	var err error
	if f.Account, err = p.Address("account", false); err != nil {
		return f, err
	}
	if f.ExtHashes, err = p.Hashes("ext_msg_hash", 1024); err != nil {
		return f, err
	}
	f.SupportedActionTypes = p.List("supported_action_types")
	return f, nil
}

// PendingTraces serves GET /api/v3/pendingTraces: the emulated traces of
// messages sent through this server whose real traces are not stored yet,
// in toncenter's Trace shape, each with its actions (toncenter's dialect),
// trace_state and finality "pending".
func PendingTraces(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(pendingParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		f, err := pendingFilter(p)
		if err != nil {
			return nil, err
		}
		traces, err := res.PendingTraces(r.Context(), f)
		if err != nil {
			return nil, err
		}
		out := &toncenter.TracesResponse{Traces: make([]*toncenter.Trace, 0, len(traces))}
		out.AddressBook, out.Metadata = pending.Books(traces)
		for _, t := range traces {
			acts, err := tcPendingActions(t.Actions)
			if err != nil {
				return nil, err
			}
			t.Trace.Actions = &acts
			out.Traces = append(out.Traces, t.Trace)
		}
		return out, nil
	})
}

// PendingActions serves GET /api/v3/pendingActions, in our action shape,
// and (toncenter) GET /toncenter/api/v3/pendingActions in toncenter's: the
// top-level actions of the pending traces (PendingTraces); by account,
// those it takes part in.
func PendingActions(res *resolvers.Resolver, toncenterShape bool) http.HandlerFunc {
	return v3Get(append(slices.Clone(pendingParams), "include_transactions"), func(r *http.Request, p *toncenter.Params) (any, error) {
		f, err := pendingFilter(p)
		if err != nil {
			return nil, err
		}
		withTxs, err := p.Bool("include_transactions")
		if err != nil {
			return nil, err
		}
		wantTxs := withTxs != nil && *withTxs
		if !toncenterShape && wantTxs {
			return nil, apperr.Field("include_transactions", "pending transactions are served in toncenter's shape only: /toncenter/api/v3/pendingActions")
		}
		traces, err := res.PendingTraces(r.Context(), f)
		if err != nil {
			return nil, err
		}
		book, meta := pending.Books(traces)
		var list []*chain.Action
		txs := map[string]*toncenter.Transaction{} // by hash, when transactions_full is asked for
		for _, t := range traces {
			for _, a := range t.Actions {
				if f.Account == nil || slices.Contains(a.Accounts, *f.Account) {
					list = append(list, a)
				}
			}
			if wantTxs {
				maps.Copy(txs, t.Trace.Transactions)
			}
		}
		if !toncenterShape {
			for _, a := range list {
				a.Accounts = nil // shown on /api/v3/actions only when asked
			}
			if list == nil {
				list = []*chain.Action{}
			}
			return &chain.ActionList{Actions: list, AddressBook: book, Metadata: meta}, nil
		}
		acts, err := tcPendingActions(list)
		if err != nil {
			return nil, err
		}
		if wantTxs {
			for _, a := range acts {
				a.TransactionsFull = []*toncenter.Transaction{}
				for _, h := range a.Transactions {
					if tx := txs[h]; tx != nil {
						a.TransactionsFull = append(a.TransactionsFull, tx)
					}
				}
			}
		}
		return &toncenter.ActionsResponse{Actions: acts, AddressBook: book, Metadata: meta}, nil
	})
}

// tcPendingActions renders pending actions in toncenter's dialect, marked
// pending.
func tcPendingActions(list []*chain.Action) ([]*toncenter.Action, error) {
	out := make([]*toncenter.Action, 0, len(list))
	for _, a := range list {
		ta, err := toncenter.RenderAction(a)
		if err != nil {
			return nil, apperr.Wrap(apperr.Internal, err, "a pending action does not render in toncenter's dialect")
		}
		ta.Finality = pending.Finality
		out = append(out, ta)
	}
	return out, nil
}

// PendingTransactions serves GET /api/v3/pendingTransactions: the emulated
// transactions of the pending traces (PendingTraces) of any of the
// accounts given (those accounts' own transactions), or of the traces
// given by id (all of theirs), newest first, in toncenter's
// TransactionsResponse, each marked emulated with finality "pending".
func PendingTransactions(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get([]string{"account", "trace_id"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		var f resolvers.PendingFilter
		var err error
		if f.Accounts, err = p.Addresses("account", 1024); err != nil {
			return nil, err
		}
		if f.TraceIDs, err = p.Hashes("trace_id", 1024); err != nil {
			return nil, err
		}
		if len(f.Accounts) == 0 && len(f.TraceIDs) == 0 {
			return nil, apperr.Field("account", "at least one account or trace_id is required")
		}
		traces, err := res.PendingTraces(r.Context(), f)
		if err != nil {
			return nil, err
		}
		out := &toncenter.TransactionsResponse{Transactions: []*toncenter.Transaction{}}
		out.AddressBook, _ = pending.Books(traces)
		for _, t := range traces {
			for _, tx := range t.Trace.Transactions {
				if len(f.Accounts) == 0 || slices.Contains(f.Accounts, tx.Account) {
					out.Transactions = append(out.Transactions, tx)
				}
			}
		}
		slices.SortFunc(out.Transactions, newestFirst)
		return out, nil
	})
}

// newestFirst orders toncenter transactions by lt (a decimal string),
// newest first, then by hash.
func newestFirst(a, b *toncenter.Transaction) int {
	if c := cmp.Compare(len(b.Lt), len(a.Lt)); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Lt, a.Lt); c != 0 {
		return c
	}
	return cmp.Compare(a.Hash, b.Hash)
}
