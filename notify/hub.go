// Package notify tells subscribers about new actions as they are
// committed: the GraphQL subscription and the SSE route both read from a
// Hub.
//
// The store is the source of truth. Every action carries a seq that grows
// in commit order (store/seq.go), and a subscription's position is a seq:
// everything that matches its filter up to there was delivered. A hub
// learns that something was committed from this process's writers at once,
// from other processes through Postgres LISTEN/NOTIFY, and in any case by
// looking every Poll interval; whatever it learns, it reads the actions
// after the last seq it told from the store, once for all subscribers, and
// hands each subscriber what matches its filter. A missed or late
// notification therefore only delays an event (by at most Poll), it never
// loses one, and a client that reconnects with its last position gets the
// missed actions from the store (replay) before the live ones, with neither
// a gap nor a repeat.
package notify

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/internal/ratelog"
	"github.com/tonql/tonql/store"
)

// Defaults of Options.
const (
	DefaultMaxStreams       = 10_000
	DefaultMaxStreamsPerKey = 20
	// DefaultMaxStreamsPerAddress bounds the streams opened without a key
	// from one client address: bare routes need no key by default, and
	// without their own bound one address could take MaxStreams whole.
	DefaultMaxStreamsPerAddress = 10
	DefaultQueue                = 10_000
	DefaultPoll                 = time.Second
	DefaultRevokeCheck          = 2 * time.Second
	// DefaultStall is how long a transport waits for a client to take
	// anything before it cuts the stream as too slow (Subscription.CutSlow).
	DefaultStall = 10 * time.Second
	// pageSize is how many actions one store read brings for the live
	// fan-out (read once for every subscriber).
	pageSize = 500
	// replayPage is how many a replay reads at once: each replaying
	// subscriber holds its page (prepared, its JSON made as it is sent),
	// so it is what a subscriber resuming from an old cursor costs in
	// memory; the next page is read only when this one has been taken.
	replayPage = 100
)

// Options configure a Hub; Store and Book are required.
type Options struct {
	Store *store.Store
	Book  BookFunc
	// MaxStreams bounds the subscriptions of this server, MaxStreamsPerKey
	// those of one API key on it.
	MaxStreams       int
	MaxStreamsPerKey int
	// MaxStreamsPerAddress bounds the streams of one client address
	// opened without a key (Request.Client).
	MaxStreamsPerAddress int
	// MaxWatch bounds the addresses and hashes one stream watches
	// (CheckWatch), MaxWatchPerKey those of one key's streams together.
	MaxWatch       int
	MaxWatchPerKey int
	// Stall is how long a client may take nothing while events wait for it
	// before its transport cuts it (Subscription.Stall, CutSlow).
	Stall time.Duration
	// Queue is how many events may wait for a subscriber; one more and the
	// subscriber is cut off (it resumes from its position), so a client that
	// does not read cannot grow the server's memory. Events are shared, so a
	// waiting event costs a subscriber a pointer; the default leaves room for
	// a whole block file's actions (1,430 in one commit) many times over.
	Queue int
	// Poll is how often the store is checked for commits nobody announced
	// (another process on SQLite, a missed Postgres notification).
	Poll time.Duration
	// PendingTimeout is how long a pending trace (Pending) waits for its
	// real trace before it is invalidated.
	PendingTimeout time.Duration
	// RevokeCheck is how often the keys holding streams are checked.
	RevokeCheck time.Duration
	// NoListen leaves Postgres LISTEN off (tests: only polling then finds
	// other processes' commits).
	NoListen bool
	Logger   *slog.Logger
}

// Hub fans new actions out to subscriptions.
type Hub struct {
	o      Options
	log    *slog.Logger
	warn   *ratelog.Limiter
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}

	// round is held for one read-prepare-fan-out step, and by a
	// subscription joining the live set, so a subscriber never joins
	// between the read of a page and its fan-out.
	round sync.Mutex

	mu         sync.Mutex
	last       uint64 // every seq up to it was read and fanned out (read's upto)
	closed     bool
	subs       map[*Subscription]struct{} // every open subscription
	perKey     map[string]int
	perAddr    map[string]int                        // streams without a key, by client address
	internal   int                                   // subscriptions of Request.Internal
	others     map[*Subscription]struct{}            // live, no account filter
	byAccount  map[string]map[*Subscription]struct{} // live, by each watched account
	byExt      map[string]map[*Subscription]struct{} // live, by each watched external hash
	watchKey   map[string]int                        // watched keys of a key's streams
	needLts    int
	needMsgs   int
	needTxs    int // live subscriptions that want transactions
	needState  int // live subscriptions that want account states
	needTraces int // live subscriptions that want traces
	needJetton int // live subscriptions that want jetton wallets' changes
	// pending traces told and not settled, by normalized external hash;
	// needPending counts the live subscriptions that want them.
	pending     map[string]*pendingTrace
	needPending int

	stats struct {
		delivered, cutSlow, revoked atomic.Int64
	}
}

// Start reads where the store stands and starts the hub's goroutines;
// Close stops them.
func Start(ctx context.Context, o Options) (*Hub, error) {
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxStreamsPerKey <= 0 {
		o.MaxStreamsPerKey = DefaultMaxStreamsPerKey
	}
	if o.MaxStreamsPerAddress <= 0 {
		o.MaxStreamsPerAddress = DefaultMaxStreamsPerAddress
	}
	if o.MaxWatch <= 0 {
		o.MaxWatch = DefaultMaxWatch
	}
	if o.MaxWatchPerKey <= 0 {
		o.MaxWatchPerKey = DefaultMaxWatchPerKey
	}
	if o.PendingTimeout <= 0 {
		o.PendingTimeout = DefaultPendingTimeout
	}
	if o.Stall <= 0 {
		o.Stall = DefaultStall
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.RevokeCheck <= 0 {
		o.RevokeCheck = DefaultRevokeCheck
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	last, err := o.Store.LastActionSeq(ctx)
	if err != nil {
		return nil, err
	}
	h := &Hub{
		o: o, log: log, warn: ratelog.New(log, time.Minute), wake: make(chan struct{}, 1), done: make(chan struct{}),
		last: last, subs: map[*Subscription]struct{}{}, perKey: map[string]int{}, perAddr: map[string]int{},
		others: map[*Subscription]struct{}{}, byAccount: map[string]map[*Subscription]struct{}{},
		byExt: map[string]map[*Subscription]struct{}{}, watchKey: map[string]int{}, pending: map[string]*pendingTrace{},
	}
	o.Store.OnActionsCommitted(func(uint64) { h.poke() })
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancel = cancel
	go h.run(rctx)
	return h, nil
}

// Close ends every subscription (with ErrShutdown's message, so clients
// reconnect elsewhere and resume) and stops the hub.
func (h *Hub) Close() {
	h.cancel()
	<-h.done
}

// Stats are the hub's counters for /metrics.
type Stats struct {
	Streams                     int
	Pending                     int // pending traces told and not yet settled
	Delivered, CutSlow, Revoked int64
	Last                        uint64
	// TxReaders counts the live subscriptions (internal ones too) that
	// want transactions: while it is 0 a hub step reads none.
	TxReaders int
}

// Stats returns a snapshot.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Stats{Streams: len(h.subs) - h.internal, Pending: len(h.pending), Delivered: h.stats.delivered.Load(), CutSlow: h.stats.cutSlow.Load(),
		Revoked: h.stats.revoked.Load(), Last: h.last, TxReaders: h.needTxs}
}

func (h *Hub) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *Hub) run(ctx context.Context) {
	defer close(h.done)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.watch(ctx)
	}()
	defer wg.Wait()
	revoke := time.NewTicker(h.o.RevokeCheck)
	defer revoke.Stop()
	expire := time.NewTicker(max(h.o.PendingTimeout/4, 10*time.Millisecond))
	defer expire.Stop()
	for {
		select {
		case <-ctx.Done():
			h.shutdown()
			return
		case <-h.wake:
			h.catchUp(ctx)
		case <-revoke.C:
			h.checkRevoked(ctx)
		case now := <-expire.C:
			if h.hasPending() {
				h.catchUp(ctx)
				h.expirePending(now)
			}
		}
	}
}

// watch pokes the hub on every notification and every Poll interval.
func (h *Hub) watch(ctx context.Context) {
	if !h.o.Store.IsPostgres() || h.o.NoListen {
		t := time.NewTicker(h.o.Poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				h.poke()
			}
		}
	}
	ln := pgdriver.NewListener(h.o.Store.DB())
	// Closing the listener is what interrupts a wait for a notification.
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	listening := false
	for ctx.Err() == nil {
		if !listening {
			if err := ln.Listen(ctx, store.NotifyChannel); err != nil {
				h.warn.Warn("LISTEN failed; polling until it works", err)
				sleep(ctx, h.o.Poll)
				h.poke()
				continue
			}
			listening = true
			h.poke() // whatever committed before LISTEN took effect
		}
		// The listener reconnects (and listens again) by itself after a
		// broken connection; what was announced meanwhile is found by the
		// poke below, which also makes the Poll interval's look.
		_, _, err := ln.ReceiveTimeout(ctx, h.o.Poll)
		h.poke()
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) && ctx.Err() == nil {
			h.warn.Warn("notification connection failed; reconnecting", err)
			sleep(ctx, h.o.Poll)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// catchUp reads what was committed after the last seq told and fans it
// out, a page at a time.
func (h *Hub) catchUp(ctx context.Context) {
	for {
		more, err := h.step(ctx)
		if err != nil {
			if ctx.Err() == nil {
				h.warn.Warn("reading new events failed; retrying", err)
			}
			return
		}
		if !more {
			return
		}
	}
}

func (h *Hub) step(ctx context.Context) (bool, error) {
	h.round.Lock()
	defer h.round.Unlock()
	h.mu.Lock()
	// Every action, nested ones too: each subscription's filter (its
	// NestedRule among the rest) is tested in memory. Transactions only
	// while a subscription wants them: one that joins later starts after
	// what the hub told (join), so it misses none.
	r := reading{filter: store.ActionFilter{Nested: store.NestedRule{Show: true}}, actions: true,
		txs: h.needTxs > 0, states: h.needState > 0, traces: h.needTraces > 0, jettons: h.needJetton > 0, lts: h.needLts > 0, msgs: h.needMsgs > 0}
	after := h.last
	h.mu.Unlock()
	events, upto, more, err := read(ctx, &h.o, r, after, pageSize)
	if err != nil || upto <= after {
		return false, err
	}
	h.fanOut(events, upto)
	return more, nil
}

// fanOut offers each event to the subscriptions that may want it: those
// watching nothing, and, by one map lookup per participant, those watching
// an account taking part or the trace's external hash. The cost per event
// does not grow with the sizes of the sets; a subscription watching two of
// the participants is offered the event once (offer skips a seq it saw).
// The hub's position then moves to upto, which may lie past the last
// event: the counter's numbers up to it were all read, those of kinds no
// one asked for (a trace while nobody streams traces) included.
func (h *Hub) fanOut(events []*Event, upto uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var cut []*Subscription
	give := func(s *Subscription, e *Event) {
		if !s.offer(e, h.o.Queue) {
			cut = append(cut, s)
		}
	}
	for _, e := range events {
		h.settleLocked(e)
		for s := range h.others {
			give(s, e)
		}
		for _, acc := range e.Accounts() {
			for s := range h.byAccount[acc] {
				give(s, e)
			}
		}
		if x := e.extNorm(); x != nil {
			for s := range h.byExt[*x] {
				give(s, e)
			}
		}
	}
	h.last = upto
	for s := range h.subs {
		if s.live {
			s.saw(h.last)
		}
	}
	for _, s := range cut {
		h.stats.cutSlow.Add(1)
		h.leaveLocked(s)
	}
}

// shutdown ends every subscription.
func (h *Hub) shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		s.finish(errShutdown())
		h.leaveLocked(s)
	}
}

// checkRevoked ends the subscriptions of keys revoked since they opened.
func (h *Hub) checkRevoked(ctx context.Context) {
	h.mu.Lock()
	owners := make([]string, 0, len(h.perKey))
	for k := range h.perKey {
		if k != "" {
			owners = append(owners, k)
		}
	}
	h.mu.Unlock()
	if len(owners) == 0 {
		return
	}
	revoked, err := h.o.Store.RevokedKeyIDs(ctx, owners)
	if err != nil {
		h.warn.Warn("checking keys of open streams failed", err)
		return
	}
	if len(revoked) == 0 {
		return
	}
	gone := make(map[string]bool, len(revoked))
	for _, id := range revoked {
		gone[id] = true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if gone[s.req.Owner] {
			s.finish(apperr.New(apperr.Unauthorized, "API key revoked"))
			h.stats.revoked.Add(1)
			h.leaveLocked(s)
		}
	}
}

// admit counts a new subscription against the limits.
func (h *Hub) admit(s *Subscription) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errShutdown()
	}
	if !s.req.Internal && len(h.subs)-h.internal >= h.o.MaxStreams {
		return apperr.New(apperr.RateLimited, "this server holds its limit of %d streams; retry later or elsewhere", h.o.MaxStreams)
	}
	if s.req.Owner != "" && h.perKey[s.req.Owner] >= h.o.MaxStreamsPerKey {
		return apperr.New(apperr.RateLimited, "this key holds its limit of %d open streams on this server (MAX_STREAMS_PER_KEY); close one first", h.o.MaxStreamsPerKey)
	}
	if n := s.watch.size(); s.req.Owner != "" && n > 0 && h.watchKey[s.req.Owner]+n > h.o.MaxWatchPerKey {
		return apperr.New(apperr.RateLimited, "this key's streams on this server would watch %d addresses and hashes, above its limit of %d (MAX_WATCHED_PER_KEY); close a stream first",
			h.watchKey[s.req.Owner]+n, h.o.MaxWatchPerKey)
	}
	if addr := s.anonymous(); addr != "" && h.perAddr[addr] >= h.o.MaxStreamsPerAddress {
		return apperr.New(apperr.RateLimited, "this address holds its limit of %d open streams without a key on this server (MAX_STREAMS_PER_ADDRESS); close one first or open streams under an API key", h.o.MaxStreamsPerAddress)
	}
	h.subs[s] = struct{}{}
	if s.req.Internal {
		h.internal++
	}
	h.perKey[s.req.Owner]++
	if n := s.watch.size(); s.req.Owner != "" && n > 0 {
		h.watchKey[s.req.Owner] += n
	}
	if addr := s.anonymous(); addr != "" {
		h.perAddr[addr]++
	}
	return nil
}

// join adds s to the live set, if the hub has told nothing after horizon
// (everything the subscription needs up to horizon it has read from the
// store); otherwise it reports false and s reads the store again.
func (h *Hub) join(s *Subscription, horizon uint64, fromNow bool) (uint64, bool) {
	h.round.Lock()
	defer h.round.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, open := h.subs[s]; !open {
		return horizon, true // ended meanwhile; Next reports why
	}
	if fromNow {
		horizon = h.last
	}
	if h.last > horizon {
		return horizon, false
	}
	s.skip = horizon
	h.index(s)
	if s.req.Pending {
		h.needPending++
	}
	lts, msgs := needsFacts(&s.req.Filter)
	if lts {
		h.needLts++
	}
	if msgs {
		h.needMsgs++
	}
	if s.wants(TypeTransactions) {
		h.needTxs++
	}
	if s.wants(TypeAccountState) {
		h.needState++
	}
	if s.wants(TypeTrace) {
		h.needTraces++
	}
	if s.wants(TypeJettons) {
		h.needJetton++
	}
	s.live = true
	return horizon, true
}

// leaveLocked forgets s (h.mu held); idempotent.
func (h *Hub) leaveLocked(s *Subscription) {
	if _, open := h.subs[s]; !open {
		return
	}
	delete(h.subs, s)
	if s.req.Internal {
		h.internal--
	}
	if h.perKey[s.req.Owner]--; h.perKey[s.req.Owner] <= 0 {
		delete(h.perKey, s.req.Owner)
	}
	if n := s.watch.size(); s.req.Owner != "" && n > 0 {
		if h.watchKey[s.req.Owner] -= n; h.watchKey[s.req.Owner] <= 0 {
			delete(h.watchKey, s.req.Owner)
		}
	}
	if addr := s.anonymous(); addr != "" {
		if h.perAddr[addr]--; h.perAddr[addr] <= 0 {
			delete(h.perAddr, addr)
		}
	}
	if !s.live {
		return
	}
	h.unindex(s)
	if s.req.Pending {
		h.needPending--
	}
	lts, msgs := needsFacts(&s.req.Filter)
	if lts {
		h.needLts--
	}
	if msgs {
		h.needMsgs--
	}
	if s.wants(TypeTransactions) {
		h.needTxs--
	}
	if s.wants(TypeAccountState) {
		h.needState--
	}
	if s.wants(TypeTrace) {
		h.needTraces--
	}
	if s.wants(TypeJettons) {
		h.needJetton--
	}
}

func errShutdown() error {
	return apperr.New(apperr.Unavailable, "the server is shutting down; reconnect with the last event id to resume")
}
