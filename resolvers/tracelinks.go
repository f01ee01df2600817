package resolvers

import (
	"context"

	"github.com/vikstrous/dataloadgen"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// MaxTraceLinks is the most items Trace.actions, Trace.transactions and
// Transaction.actions return for one parent: a trace can have thousands of
// actions, and the cost walk (server/gqlcost.go) counts these lists at
// this size, so it is what bounds a nested query's fan-out.
const MaxTraceLinks = 1000

// traceLoaders are the loaders of the trace links (see loaders).
type traceLoaders struct {
	traces       *dataloadgen.Loader[string, *chain.TraceInfo]
	traceActions *dataloadgen.Loader[store.TraceRef, []*chain.Action]
	traceTxs     *dataloadgen.Loader[store.TraceRef, []*chain.Transaction]
	// traceTxsWithMessages is traceTxs with messages (see loaders).
	traceTxsWithMessages *dataloadgen.Loader[store.TraceRef, []*chain.Transaction]
	txActions            *dataloadgen.Loader[store.TxRef, []*chain.Action]
	// children and actionsByID are an action's nested-action links
	// (Action.children, Action.parent).
	children    *dataloadgen.Loader[store.ActionSpan, []*chain.Action]
	actionsByID *dataloadgen.Loader[store.ActionSpan, *chain.Action]
}

func (r *Resolver) newTraceLoaders() traceLoaders {
	traceID := func(t store.TraceRef) string { return t.ID }
	traceTxs := func(withMessages bool) *dataloadgen.Loader[store.TraceRef, []*chain.Transaction] {
		return dataloadgen.NewLoader(func(ctx context.Context, refs []store.TraceRef) ([][]*chain.Transaction, []error) {
			m, err := r.Store.TransactionsOfTraces(ctx, refs, withMessages, MaxTraceLinks)
			return ordered(refs, traceID, m, err)
		}, dataloadgen.WithWait(loaderWait))
	}
	return traceLoaders{
		traces: dataloadgen.NewLoader(func(ctx context.Context, ids []string) ([]*chain.TraceInfo, []error) {
			m, err := r.Store.Traces(ctx, ids)
			return ordered(ids, func(id string) string { return id }, m, err)
		}, dataloadgen.WithWait(loaderWait)),
		traceActions: dataloadgen.NewLoader(func(ctx context.Context, refs []store.TraceRef) ([][]*chain.Action, []error) {
			m, err := r.Store.TraceActions(ctx, refs, MaxTraceLinks)
			return ordered(refs, traceID, m, err)
		}, dataloadgen.WithWait(loaderWait)),
		traceTxs:             traceTxs(false),
		traceTxsWithMessages: traceTxs(true),
		txActions: dataloadgen.NewLoader(func(ctx context.Context, refs []store.TxRef) ([][]*chain.Action, []error) {
			m, err := r.Store.TransactionActions(ctx, refs, MaxTraceLinks)
			return ordered(refs, func(r store.TxRef) string { return r.Hash }, m, err)
		}, dataloadgen.WithWait(loaderWait)),
		children: dataloadgen.NewLoader(func(ctx context.Context, spans []store.ActionSpan) ([][]*chain.Action, []error) {
			m, err := r.Store.ChildActions(ctx, spans, MaxTraceLinks)
			return ordered(spans, spanID, m, err)
		}, dataloadgen.WithWait(loaderWait)),
		actionsByID: dataloadgen.NewLoader(func(ctx context.Context, spans []store.ActionSpan) ([]*chain.Action, []error) {
			m, err := r.Store.ActionsByID(ctx, spans)
			return ordered(spans, spanID, m, err)
		}, dataloadgen.WithWait(loaderWait)),
	}
}

func spanID(s store.ActionSpan) string { return s.ID }

// ChildrenOf links an action to its nested steps (the first
// MaxTraceLinks), read through the request's loader: every child is shown,
// whatever the page's supported_action_types hid. A preview's action has
// none stored: [].
func (r *Resolver) ChildrenOf(ctx context.Context, a *chain.Action) ([]*chain.Action, error) {
	return nonNil(r.loaders(ctx).children.Load(ctx, store.ChildrenSpanOf(a)))
}

// ParentOf links a nested action to the action it is a step of, read by
// id (not through a page's filter, which hides nested actions); nil for a
// top-level action, or one whose parent is not stored (a preview's).
func (r *Resolver) ParentOf(ctx context.Context, a *chain.Action) (*chain.Action, error) {
	if a.ParentActionID == "" {
		return nil, nil
	}
	return r.loaders(ctx).actionsByID.Load(ctx, store.ParentSpanOf(a))
}

// TraceOf links an action to its trace, read through the request's loader.
// A preview's action has no stored trace: nil.
func (r *Resolver) TraceOf(ctx context.Context, a *chain.Action) (*chain.TraceInfo, error) {
	return r.loaders(ctx).traces.Load(ctx, a.TraceID)
}

// TraceByID answers trace(trace_id): nil for a trace the store does not
// have. The id takes the forms of the trace_id filter, with its error.
func (r *Resolver) TraceByID(ctx context.Context, traceID string) (*chain.TraceInfo, error) {
	ids, err := hashes("trace_id", []string{traceID})
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).traces.Load(ctx, ids[0])
}

// TraceActions links a trace to its top-level actions (the first
// MaxTraceLinks; nested ones are reached through Action.children).
func (r *Resolver) TraceActions(ctx context.Context, t *chain.TraceInfo) ([]*chain.Action, error) {
	return nonNil(r.loaders(ctx).traceActions.Load(ctx, store.RefOfTrace(t)))
}

// TraceTransactions links a trace to its transactions in lt order (the
// first MaxTraceLinks), with their messages only when the selection shows
// them, as TransactionsFull.
func (r *Resolver) TraceTransactions(ctx context.Context, t *chain.TraceInfo) ([]*chain.FullTransaction, error) {
	l := r.loaders(ctx)
	txs, err := withMessages(ctx, l.traceTxs, l.traceTxsWithMessages).Load(ctx, store.RefOfTrace(t))
	if err != nil {
		return nil, err
	}
	return fullTransactions(txs), nil
}

// TransactionActions links a transaction to every top-level action that
// includes it. A preview's transaction is in no stored action: [].
func (r *Resolver) TransactionActions(ctx context.Context, tx *chain.FullTransaction) ([]*chain.Action, error) {
	return nonNil(r.loaders(ctx).txActions.Load(ctx, store.TxRef{Hash: tx.Hash, StartLt: tx.Lt, EndLt: tx.Lt}))
}

// nonNil makes a parent without links an empty list (JSON []), as the
// schema's non-null list requires.
func nonNil(as []*chain.Action, err error) ([]*chain.Action, error) {
	if as == nil && err == nil {
		as = []*chain.Action{}
	}
	return as, err
}
