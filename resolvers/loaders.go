package resolvers

import (
	"context"
	"sync"
	"time"

	"github.com/vikstrous/dataloadgen"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
)

// The links of the graph (an action's transactions and participants, an
// account's facts, the trace links) are read through per-request loaders:
// every link that one response needs is collected for a moment and read in
// one query, so a page of 100 actions with their participants costs a few
// queries, not hundreds. Each loader is made when a field first asks for
// it: an operation uses few of the links, and making all eleven cost every
// GraphQL request 46 allocations (a tenth of what a page of ten actions
// spent beyond the REST page's work).
type loaders struct {
	r                        *Resolver
	facts                    lazy[string, chain.AddressFacts]
	participants             lazy[store.ActionRef, []store.Participant]
	transactions             lazy[store.TxRef, *chain.Transaction]
	transactionsWithMessages lazy[store.TxRef, *chain.Transaction]
	traces                   lazy[string, *chain.TraceInfo]
	traceActions             lazy[store.TraceRef, []*chain.Action]
	traceTxs                 lazy[store.TraceRef, []*chain.Transaction]
	traceTxsWithMessages     lazy[store.TraceRef, []*chain.Transaction]
	txActions                lazy[store.TxRef, []*chain.Action]
	children                 lazy[store.ActionSpan, []*chain.Action] // Action.children
	actionsByID              lazy[store.ActionSpan, *chain.Action]   // Action.parent
	tokens                   lazy[TokenKey, *model.Token]            // the details' token fields
}

type loadersKey struct{}

// defaultLoaderWait is how long a loader collects keys before it reads
// them, unless the Resolver says otherwise (LoaderWait).
const defaultLoaderWait = 500 * time.Microsecond

func (r *Resolver) loaderWait() time.Duration {
	if r.LoaderWait > 0 {
		return r.LoaderWait
	}
	return defaultLoaderWait
}

// WithLoaders gives a GraphQL operation its own loaders (their caches live
// as long as the operation, so no answer is ever stale across requests).
func (r *Resolver) WithLoaders(ctx context.Context) context.Context {
	return context.WithValue(ctx, loadersKey{}, &loaders{r: r})
}

func (r *Resolver) loaders(ctx context.Context) *loaders {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return l
	}
	// Outside a GraphQL operation (a direct call): loaders for this call only.
	return &loaders{r: r}
}

// lazy is a loader made on first use.
type lazy[K comparable, V any] struct {
	once sync.Once
	l    *dataloadgen.Loader[K, V]
}

// get returns z's loader, made now with fetch (which gets r) the first time.
func get[K comparable, V any](z *lazy[K, V], r *Resolver, fetch func(*Resolver, context.Context, []K) ([]V, []error)) *dataloadgen.Loader[K, V] {
	z.once.Do(func() {
		z.l = dataloadgen.NewLoader(func(ctx context.Context, keys []K) ([]V, []error) {
			return fetch(r, ctx, keys)
		}, dataloadgen.WithWait(r.loaderWait()))
	})
	return z.l
}

func (l *loaders) factsLoader() *dataloadgen.Loader[string, chain.AddressFacts] {
	return get(&l.facts, l.r, func(r *Resolver, ctx context.Context, addrs []string) ([]chain.AddressFacts, []error) {
		m, err := r.Store.AddressFacts(ctx, addrs)
		return ordered(addrs, func(a string) string { return a }, m, err)
	})
}

func (l *loaders) participantsLoader() *dataloadgen.Loader[store.ActionRef, []store.Participant] {
	return get(&l.participants, l.r, func(r *Resolver, ctx context.Context, refs []store.ActionRef) ([][]store.Participant, []error) {
		m, err := r.Store.Participants(ctx, refs)
		return ordered(refs, func(r store.ActionRef) string { return r.ID }, m, err)
	})
}

// transactionsLoader reads transactions, with their messages when
// withMessages (message bodies are the bulk of a read, so only selections
// that show them pay for them).
func (l *loaders) transactionsLoader(withMessages bool) *dataloadgen.Loader[store.TxRef, *chain.Transaction] {
	z := &l.transactions
	if withMessages {
		z = &l.transactionsWithMessages
	}
	return get(z, l.r, func(r *Resolver, ctx context.Context, refs []store.TxRef) ([]*chain.Transaction, []error) {
		m, err := r.Store.Transactions(ctx, refs, withMessages)
		return ordered(refs, func(r store.TxRef) string { return r.Hash }, m, err)
	})
}

func (l *loaders) tracesLoader() *dataloadgen.Loader[string, *chain.TraceInfo] {
	return get(&l.traces, l.r, func(r *Resolver, ctx context.Context, ids []string) ([]*chain.TraceInfo, []error) {
		m, err := r.Store.Traces(ctx, ids)
		return ordered(ids, func(id string) string { return id }, m, err)
	})
}

func traceID(t store.TraceRef) string { return t.ID }

func (l *loaders) traceActionsLoader() *dataloadgen.Loader[store.TraceRef, []*chain.Action] {
	return get(&l.traceActions, l.r, func(r *Resolver, ctx context.Context, refs []store.TraceRef) ([][]*chain.Action, []error) {
		m, err := r.Store.TraceActions(ctx, refs, MaxTraceLinks)
		return ordered(refs, traceID, m, err)
	})
}

// traceTxsLoader reads traces' transactions (see transactionsLoader).
func (l *loaders) traceTxsLoader(withMessages bool) *dataloadgen.Loader[store.TraceRef, []*chain.Transaction] {
	z := &l.traceTxs
	if withMessages {
		z = &l.traceTxsWithMessages
	}
	return get(z, l.r, func(r *Resolver, ctx context.Context, refs []store.TraceRef) ([][]*chain.Transaction, []error) {
		m, err := r.Store.TransactionsOfTraces(ctx, refs, withMessages, MaxTraceLinks)
		return ordered(refs, traceID, m, err)
	})
}

func (l *loaders) txActionsLoader() *dataloadgen.Loader[store.TxRef, []*chain.Action] {
	return get(&l.txActions, l.r, func(r *Resolver, ctx context.Context, refs []store.TxRef) ([][]*chain.Action, []error) {
		m, err := r.Store.TransactionActions(ctx, refs, MaxTraceLinks)
		return ordered(refs, func(r store.TxRef) string { return r.Hash }, m, err)
	})
}

func spanID(s store.ActionSpan) string { return s.ID }

func (l *loaders) childrenLoader() *dataloadgen.Loader[store.ActionSpan, []*chain.Action] {
	return get(&l.children, l.r, func(r *Resolver, ctx context.Context, spans []store.ActionSpan) ([][]*chain.Action, []error) {
		m, err := r.Store.ChildActions(ctx, spans, MaxTraceLinks)
		return ordered(spans, spanID, m, err)
	})
}

func (l *loaders) actionsByIDLoader() *dataloadgen.Loader[store.ActionSpan, *chain.Action] {
	return get(&l.actionsByID, l.r, func(r *Resolver, ctx context.Context, spans []store.ActionSpan) ([]*chain.Action, []error) {
		m, err := r.Store.ActionsByID(ctx, spans)
		return ordered(spans, spanID, m, err)
	})
}

// tokensLoader reads the Tokens that a response's action details name:
// every token field of a page in one metadata statement and one jetton
// master statement, not two statements per field.
func (l *loaders) tokensLoader() *dataloadgen.Loader[TokenKey, *model.Token] {
	return get(&l.tokens, l.r, func(r *Resolver, ctx context.Context, keys []TokenKey) ([]*model.Token, []error) {
		m, err := r.TokensOf(ctx, keys)
		return ordered(keys, TokenKey.id, m, err)
	})
}

// ordered lays a map out in key order (id is the map key of a loader
// key); a missing key gets the zero value.
func ordered[K any, V any](keys []K, id func(K) string, m map[string]V, err error) ([]V, []error) {
	out := make([]V, len(keys))
	if err != nil {
		errs := make([]error, len(keys))
		for i := range errs {
			errs[i] = err
		}
		return out, errs
	}
	for i, k := range keys {
		out[i] = m[id(k)]
	}
	return out, nil
}
