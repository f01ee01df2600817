package notify

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/store"
)

// Request is what a subscriber asks for.
type Request struct {
	// Filter is a validated /api/v3/actions filter (only filters count).
	// Of transactions, only its account and watch set count (txScope).
	Filter store.ActionFilter
	// Types are the event types wanted (TypeActions, TypeTransactions,
	// TypeAccountState, TypeTrace, TypeJettons); nil: actions.
	Types []string
	// After resumes after this position (an event's Seq): the store's
	// matching actions after it are replayed first. Nil starts from now.
	After *uint64
	// Owner is the id of the API key the stream was opened with; "" for a
	// bare route. It counts against MaxStreamsPerKey, and the stream ends
	// when the key is revoked.
	Owner string
	// Pending asks for pending events (min_finality pending): the
	// emulated actions of messages sent through this server, and the
	// invalidation of those whose trace was not stored in time.
	Pending bool
	// Client is the client's address (apikey.ClientAddr); a stream without
	// an Owner counts against MaxStreamsPerAddress under it.
	Client string
	// Internal marks a subscriber inside this server (the webhook
	// dispatcher): not a client's stream, so it neither counts in
	// Stats.Streams (tonql_streams_open) nor takes a place of MaxStreams.
	Internal bool
}

// wants tells whether the subscription asked for events of type t.
func (s *Subscription) wants(t string) bool {
	if len(s.req.Types) == 0 {
		return t == TypeActions
	}
	return slices.Contains(s.req.Types, t)
}

// anonymous is the address a keyless stream counts under; "" for keyed ones.
func (s *Subscription) anonymous() string {
	if s.req.Owner != "" {
		return ""
	}
	return s.req.Client
}

// Subscription is one subscriber's stream. One goroutine consumes it
// (Next, Position, Ready); the hub feeds it from its own.
type Subscription struct {
	hub   *Hub
	req   Request
	watch *watch // the filter's watch set as maps; nil watches nothing
	wake  chan struct{}

	// The consumer's.
	pos       uint64 // every matching action up to pos was delivered
	replaying bool
	buf       []*Event // a replayed page not yet delivered

	// Set under hub.mu.
	live    bool
	skip    uint64 // live events up to here came from the replay
	offered uint64 // the last event offered: reached by two of its keys, it is queued once

	// Shared with the hub under mu.
	mu    sync.Mutex
	queue []*Event
	seen  uint64 // the hub told everything up to here
	end   error
}

// Subscribe opens a stream, or refuses it with a RateLimited error when
// the server or the key holds its limit of streams.
func (h *Hub) Subscribe(ctx context.Context, r Request) (*Subscription, error) {
	s := &Subscription{hub: h, req: r, watch: newWatch(&r.Filter), wake: make(chan struct{}, 1)}
	if err := h.admit(s); err != nil {
		return nil, err
	}
	if r.After != nil {
		s.pos, s.replaying = *r.After, true
		s.signal()
		return s, nil
	}
	s.pos, _ = h.join(s, 0, true)
	return s, nil
}

// Close ends the subscription and frees its place.
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	s.hub.leaveLocked(s)
	s.hub.mu.Unlock()
	s.finish(apperr.New(apperr.Unavailable, "stream closed"))
}

// Ready is signalled when Next may have something: an event or the end.
func (s *Subscription) Ready() <-chan struct{} { return s.wake }

// Next returns the next event; nil and no error when nothing is waiting
// (wait for Ready); an error when the stream has ended (it says why, and
// Position is where to resume).
func (s *Subscription) Next(ctx context.Context) (*Event, error) {
	if s.replaying {
		return s.nextReplay(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end != nil {
		return nil, s.end
	}
	if len(s.queue) == 0 {
		return nil, nil
	}
	e := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	if len(s.queue) == 0 {
		s.queue = nil
	}
	if !e.Pending && e.Invalidated == "" {
		s.pos = e.Seq // pending news moves no position: the stored trace comes later
	}
	s.hub.stats.delivered.Add(1)
	return e, nil
}

// nextReplay delivers the store's matching actions after the position, a
// page at a time, until it has caught up with the hub, then joins the live
// set.
func (s *Subscription) nextReplay(ctx context.Context) (*Event, error) {
	if err := s.ended(); err != nil {
		return nil, err
	}
	r := reading{filter: s.req.Filter, actions: s.wants(TypeActions), txs: s.wants(TypeTransactions), states: s.wants(TypeAccountState),
		traces: s.wants(TypeTrace), jettons: s.wants(TypeJettons)}
	if r.txs || r.states || r.jettons {
		// A jetton wallet's change is matched by the wallet or its owner,
		// both columns of the logged change.
		accounts, none := txScope(&s.req.Filter)
		if none {
			r.txs, r.states, r.jettons = false, false, false
		}
		r.txAccounts, r.jettonAccounts = accounts, accounts
	}
	if r.traces {
		r.traceAccounts, r.traceExtNorms = traceScope(&s.req.Filter)
	}
	for len(s.buf) == 0 {
		// Every event up to upto was read (the counter's value read first).
		events, upto, more, err := read(ctx, &s.hub.o, r, s.pos, replayPage)
		if err != nil {
			return nil, err
		}
		// The store applied the filter to the rest (an action's in-memory
		// test needs facts a replay does not read).
		events = slices.DeleteFunc(events, func(e *Event) bool { return e.Action == nil && !s.keep(e) })
		if len(events) > 0 {
			s.buf = events
			break
		}
		if more {
			s.pos = max(s.pos, upto) // a page of events this stream does not take
			continue
		}
		horizon, ok := s.hub.join(s, max(s.pos, upto), false)
		if ok {
			s.replaying = false
			s.pos = max(s.pos, horizon)
			return s.Next(ctx)
		}
	}
	e := s.buf[0]
	s.buf[0] = nil // its JSON goes with it once sent
	s.buf = s.buf[1:]
	s.pos = e.Seq
	s.hub.stats.delivered.Add(1)
	s.signal() // the replay goes on at once
	return e, nil
}

// Position is where a client resumes: every action matching the filter
// up to it has been delivered.
func (s *Subscription) Position() uint64 {
	if s.replaying {
		return s.pos
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 && s.end == nil {
		return max(s.pos, s.seen)
	}
	return s.pos
}

func (s *Subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Subscription) ended() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end
}

// offer queues e if it matches (hub.mu held). It reports false when this
// offer cut the subscriber off for being too slow.
func (s *Subscription) offer(e *Event, limit int) bool {
	if e.Seq <= s.skip || e.Seq == s.offered {
		return true
	}
	s.offered = e.Seq
	if !s.wants(e.Type()) || !s.keep(e) {
		return true
	}
	return s.push(e, limit)
}

// keep tells whether e passes the subscription's filter and watch set
// (its type aside). The replay's store reads apply most of it in SQL; a
// trace of a single account with a watch set is tested here only.
func (s *Subscription) keep(e *Event) bool {
	if !s.watch.passes(&s.req.Filter, e) {
		return false
	}
	if e.Tx != nil || e.State != nil || e.Trace != nil || e.Jetton != nil {
		return txMatches(&s.req.Filter, e)
	}
	return matches(&s.req.Filter, e)
}

// push queues e (hub.mu held); false when this cut the subscriber off.
func (s *Subscription) push(e *Event, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end != nil {
		return true
	}
	if len(s.queue) >= limit {
		s.queue, s.end = nil, errSlow(fmt.Sprintf("%d events were waiting", limit))
		s.signal()
		return false
	}
	s.queue = append(s.queue, e)
	s.signal()
	return true
}

// Stall is how long a transport lets a client take nothing while events
// wait for it before it calls CutSlow (Options.Stall).
func (s *Subscription) Stall() time.Duration { return s.hub.o.Stall }

// CutSlow ends the stream because its client took nothing for Stall while
// events waited: the transport's buffer is full or its write is blocked.
// Like a full queue, it is counted (Stats.CutSlow) and frees the place at
// once; the returned error is the stream's last word, and the transport
// reports it with the position of the last event it handed to the client.
func (s *Subscription) CutSlow(what string) error {
	h := s.hub
	h.mu.Lock()
	_, open := h.subs[s]
	h.leaveLocked(s)
	h.mu.Unlock()
	err := errSlow(what)
	if open {
		h.stats.cutSlow.Add(1)
		s.finish(err)
	}
	if e := s.ended(); e != nil {
		return e
	}
	return err
}

func errSlow(what string) error {
	return apperr.New(apperr.Unavailable, "the client read too slowly (%s); reconnect with the last event id to resume", what)
}

// saw records that the hub told everything up to seq.
func (s *Subscription) saw(seq uint64) {
	s.mu.Lock()
	s.seen = seq
	s.mu.Unlock()
}

// finish ends the stream with err, dropping what was waiting.
func (s *Subscription) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end == nil {
		s.end, s.queue = err, nil
		s.signal()
	}
}
