package resolvers

import (
	"context"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// MaxTraceLinks is the most items Trace.actions, Trace.transactions and
// Transaction.actions return for one parent: a trace can have thousands of
// actions, and the cost walk (server/gqlcost.go) counts these lists at
// this size, so it is what bounds a nested query's fan-out.
const MaxTraceLinks = 1000

// ChildrenOf links an action to its nested steps (the first
// MaxTraceLinks), read through the request's loader: every child is shown,
// whatever the page's supported_action_types hid. A preview's steps are
// primed into the loader (primeLinks).
func (r *Resolver) ChildrenOf(ctx context.Context, a *chain.Action) ([]*chain.Action, error) {
	return nonNil(r.loaders(ctx).childrenLoader().Load(ctx, store.ChildrenSpanOf(a)))
}

// ParentOf links a nested action to the action it is a step of, read by
// id (not through a page's filter, which hides nested actions); nil for a
// top-level action. A preview's parent is primed (primeLinks).
func (r *Resolver) ParentOf(ctx context.Context, a *chain.Action) (*chain.Action, error) {
	if a.ParentActionID == "" {
		return nil, nil
	}
	return r.loaders(ctx).actionsByIDLoader().Load(ctx, store.ParentSpanOf(a))
}

// TraceOf links an action to its trace, read through the request's loader.
// A preview's action has no stored trace: nil.
func (r *Resolver) TraceOf(ctx context.Context, a *chain.Action) (*chain.TraceInfo, error) {
	return r.loaders(ctx).tracesLoader().Load(ctx, a.TraceID)
}

// TraceByID answers trace(trace_id): nil for a trace the store does not
// have. The id takes the forms of the trace_id filter, with its error.
func (r *Resolver) TraceByID(ctx context.Context, traceID string) (*chain.TraceInfo, error) {
	ids, err := hashes("trace_id", []string{traceID})
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).tracesLoader().Load(ctx, ids[0])
}

// TraceActions links a trace to its top-level actions (the first
// MaxTraceLinks; nested ones are reached through Action.children).
func (r *Resolver) TraceActions(ctx context.Context, t *chain.TraceInfo) ([]*chain.Action, error) {
	return nonNil(r.loaders(ctx).traceActionsLoader().Load(ctx, store.RefOfTrace(t)))
}

// TraceTransactions links a trace to its transactions in lt order (the
// first MaxTraceLinks), with their messages only when the selection shows
// them, as TransactionsFull.
func (r *Resolver) TraceTransactions(ctx context.Context, t *chain.TraceInfo) ([]*chain.FullTransaction, error) {
	txs, err := r.loaders(ctx).traceTxsLoader(selects(ctx, messageFields)).Load(ctx, store.RefOfTrace(t))
	if err != nil {
		return nil, err
	}
	return fullTransactions(txs), nil
}

// TransactionActions links a transaction to every top-level action that
// includes it. A preview's transaction is in no stored action: [].
func (r *Resolver) TransactionActions(ctx context.Context, tx *chain.FullTransaction) ([]*chain.Action, error) {
	return nonNil(r.loaders(ctx).txActionsLoader().Load(ctx, store.TxRef{Hash: tx.Hash, StartLt: tx.Lt, EndLt: tx.Lt}))
}

// nonNil makes a parent without links an empty list (JSON []), as the
// schema's non-null list requires.
func nonNil(as []*chain.Action, err error) ([]*chain.Action, error) {
	if as == nil && err == nil {
		as = []*chain.Action{}
	}
	return as, err
}
