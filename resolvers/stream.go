package resolvers

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/internal/netconn"
	"github.com/tonql/tonql/notify"
)

// A stream cursor is a position in the stream (notify: an action's seq),
// as opaque url-safe base64 ("seq:<n>" inside, so it is never mistaken for
// a page cursor of Account.actions, which is "<end_lt>:<action_id>").

// EncodeStreamCursor is the cursor of a stream position.
func EncodeStreamCursor(seq uint64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("seq:" + strconv.FormatUint(seq, 10)))
}

func decodeStreamCursor(field, s string) (uint64, error) {
	bad := apperr.Field(field, "not a stream cursor of this API (pass an event's id or cursor as it came)")
	if len(s) > 64 {
		return 0, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, bad
	}
	n, ok := strings.CutPrefix(string(b), "seq:")
	if !ok {
		return 0, bad
	}
	seq, err := strconv.ParseUint(n, 10, 63)
	if err != nil {
		return 0, bad
	}
	return seq, nil
}

// ActionStream is an open stream of actions and how its events are shown.
type ActionStream struct {
	*notify.Subscription
	IncludeAccounts bool
}

// SubscribeActions checks a filter and a resume cursor exactly as
// ListActions checks its filter, and opens a stream under the request's key.
// field names the resume parameter in errors (after, Last-Event-ID). The SSE
// route and the GraphQL subscription both end here.
func (r *Resolver) SubscribeActions(ctx context.Context, in *model.ActionFilter, watch *model.StreamWatch, after *string, field string) (*ActionStream, error) {
	if r.Notify == nil {
		return nil, apperr.New(apperr.Unavailable, "streams are not enabled on this server")
	}
	f, err := storeFilter(in, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	if err := r.applyWatch(watch, &f); err != nil {
		return nil, err
	}
	if in != nil && isTrue(in.IncludeTransactions) {
		// An event is sent as its action is stored; reading its
		// transactions there would slow every subscriber's fan-out.
		return nil, apperr.Field("include_transactions", "not served on streams; read an action's transactions from /api/v3/actions?action_id=...&include_transactions=true")
	}
	var from *uint64
	if after != nil {
		seq, err := decodeStreamCursor(field, *after)
		if err != nil {
			return nil, err
		}
		from = &seq
	}
	pending := watch != nil && watch.MinFinality != nil && *watch.MinFinality == FinalityPending
	var types []string
	if watch != nil {
		types = slices.Compact(slices.Sorted(slices.Values(watch.Types)))
	}
	sub, err := r.Notify.Subscribe(ctx, notify.Request{Filter: f, After: from, Pending: pending, Types: types,
		Owner: apikey.KeyID(ctx), Client: apikey.ClientAddr(ctx)})
	if err != nil {
		return nil, err
	}
	return &ActionStream{Subscription: sub, IncludeAccounts: in != nil && isTrue(in.IncludeAccounts)}, nil
}

// SubscribeActionEvents serves Subscription.actions, which streams
// actions only (Subscription.events streams the other types).
func (r *Resolver) SubscribeActionEvents(ctx context.Context, in *model.ActionFilter, watch *model.StreamWatch, after *string) (<-chan *model.ActionEvent, error) {
	if watch != nil {
		for _, t := range watch.Types {
			if t != EventActions && eventTypes[t] {
				return nil, apperr.Field("types", "Subscription.actions streams actions; subscribe to Subscription.events for %s", t)
			}
		}
	}
	st, err := r.SubscribeActions(ctx, in, watch, after, "after")
	if err != nil {
		return nil, err
	}
	var told pendingTold
	return pumpEvents(ctx, st, func(e *notify.Event) []*model.ActionEvent { return told.events(e, st.IncludeAccounts) }), nil
}

// pumpEvents moves a stream's events to gqlgen, each made into its
// GraphQL events by conv, in one goroutine per subscription until the
// operation ends or the stream does (then with an error that carries the
// resume cursor). gqlgen takes an event only when it has written the one
// before to the socket, so an event not taken for the stall time means a
// client that reads nothing: the stream is cut as too slow, like an SSE
// stream, and the socket's writes are bounded so the cut cannot hang on
// that client.
func pumpEvents[T any](ctx context.Context, st *ActionStream, conv func(*notify.Event) []*T) <-chan *T {
	netconn.LimitSendBuffer(ctx)
	// Unbuffered: the subscription's own queue is the (bounded) buffer.
	ch := make(chan *T)
	go func() {
		defer close(ch)
		defer st.Close()
		stall := time.NewTimer(st.Stall())
		defer stall.Stop()
		for {
			taken := st.Position() // what gqlgen has taken
			e, err := st.Next(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				transport.AddSubscriptionError(ctx, StreamEndError(err, taken))
				return
			}
			if e == nil {
				select {
				case <-ctx.Done():
					return
				case <-st.Ready():
				}
				continue
			}
			for _, ev := range conv(e) {
				stall.Reset(st.Stall())
				select {
				case ch <- ev:
				case <-ctx.Done():
					return
				case <-stall.C:
					err := st.CutSlow("it took nothing for " + st.Stall().String())
					transport.AddSubscriptionError(ctx, StreamEndError(err, taken))
					netconn.BoundWrites(ctx, st.Stall())
					return
				}
			}
		}
	}()
	return ch
}

// StreamEndError is how a subscription's end reads in GraphQL: the
// classified message and code, and the cursor to resume from.
func StreamEndError(err error, pos uint64) *gqlerror.Error {
	e := apperr.From(err)
	return &gqlerror.Error{Message: e.Public(), Extensions: map[string]any{
		"code": e.Kind.Info().GQLCode, "cursor": EncodeStreamCursor(pos)}}
}

// pendingTold are the pending actions a GraphQL subscription was told, by
// trace_external_hash_norm, until their trace is stored: an invalidation
// names only the hash, and ActionEvent.action is non-null, so each of them
// is told again as invalidated.
type pendingTold map[string][]*model.ActionEvent

// events are the GraphQL events of e: its action (finalized or pending),
// or for an invalidation the pending actions of its trace, void.
func (p *pendingTold) events(e *notify.Event, includeAccounts bool) []*model.ActionEvent {
	cursor := EncodeStreamCursor(e.Seq)
	if e.Invalidated != "" {
		told := (*p)[e.Invalidated]
		delete(*p, e.Invalidated)
		out := make([]*model.ActionEvent, len(told))
		for i, t := range told {
			c := *t
			c.Cursor, c.Finality = cursor, FinalityInvalidated
			out[i] = &c
		}
		return out
	}
	l := e.List(includeAccounts)
	a := l.Actions[0]
	ev := &model.ActionEvent{Cursor: cursor, Finality: FinalityFinalized, Action: a, AddressBook: l.AddressBook, Metadata: l.Metadata}
	switch x := a.TraceExternalHashNorm; {
	case e.Pending && x != nil:
		ev.Finality = FinalityPending
		if *p == nil {
			*p = pendingTold{}
		}
		(*p)[*x] = append((*p)[*x], ev)
	case e.Pending:
		ev.Finality = FinalityPending
	case x != nil && len(*p) > 0:
		delete(*p, *x) // settled by its stored trace
	}
	return []*model.ActionEvent{ev}
}

// SubscribeEvents serves Subscription.events: the event types of
// watch.types (default actions) in one stream and one cursor.
func (r *Resolver) SubscribeEvents(ctx context.Context, in *model.ActionFilter, watch *model.StreamWatch, after *string) (<-chan *model.StreamEvent, error) {
	st, err := r.SubscribeActions(ctx, in, watch, after, "after")
	if err != nil {
		return nil, err
	}
	var told pendingTold
	return pumpEvents(ctx, st, func(e *notify.Event) []*model.StreamEvent {
		if e.State != nil {
			return []*model.StreamEvent{stateEvent(e)}
		}
		if e.Trace != nil {
			return []*model.StreamEvent{traceEvent(e)}
		}
		if e.Jetton != nil {
			return []*model.StreamEvent{jettonsEvent(e)}
		}
		if e.Tx == nil {
			evs := told.events(e, st.IncludeAccounts)
			out := make([]*model.StreamEvent, len(evs))
			for i, a := range evs {
				out[i] = &model.StreamEvent{Cursor: a.Cursor, Type: EventActions, Finality: a.Finality, Action: a.Action,
					TraceExternalHashNorm: a.Action.TraceExternalHashNorm, AddressBook: a.AddressBook, Metadata: a.Metadata}
			}
			return out
		}
		_, book, md, err := e.Tx.Rendered()
		ev := &model.StreamEvent{Cursor: EncodeStreamCursor(e.Seq), Type: EventTransactions, Finality: FinalityFinalized,
			Transaction: chain.NewFullTransaction(e.Tx.Tx), AddressBook: book, Metadata: md}
		if err != nil {
			ev.AddressBook, ev.Metadata = chain.AddressBook{}, chain.Metadata{}
		}
		if x := e.Tx.TraceExternalHashNorm; x != "" {
			ev.TraceExternalHashNorm = &x
		}
		return []*model.StreamEvent{ev}
	}), nil
}
