// Package webhooks is durable subscriptions: a hook watches a set of
// addresses for event types and has every matching event POSTed to its
// URL, signed, in order, retried until the receiver takes it.
//
// It sits on notify's hub and the store. A dispatcher holds one hub
// subscription (of the event types the live hooks watch, resumed from a
// cursor kept in the store, and made again when that set changes),
// matches each action against the hooks in memory (O(1) per participant:
// an index by address) and queues an event per matching hook in the
// outbox, in the same transaction that moves the cursor. Delivery workers
// take hooks that have queued events by lease, and send each hook's events
// in seq order, one at a time, deleting each once its receiver answered
// 2xx. So a restart or a kill -9 loses nothing (the outbox and the cursor
// are committed together; an event is removed only after its receiver
// took it: it may be sent again, with the same event id, which receivers
// dedup on), and several server processes on one database share the work:
// the cursor row serializes their dispatchers, and a hook's lease gives
// its events to one process at a time.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tonql/tonql/internal/backoff"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/store"
)

// Event types a hook may watch: those of notify's hub.
const (
	EventActions      = notify.TypeActions
	EventTransactions = notify.TypeTransactions
	EventAccountState = notify.TypeAccountState
	EventTrace        = notify.TypeTrace
	EventJettons      = notify.TypeJettons
)

// EventTypes are the event types a hook may watch.
var EventTypes = []string{EventActions, EventTransactions, EventAccountState, EventTrace, EventJettons}

// Defaults of Options.
const (
	DefaultMaxHooksPerKey = 20
	DefaultMaxAddresses   = 10_000
	DefaultWorkers        = 32
	DefaultTimeout        = 10 * time.Second
	DefaultMaxRead        = 16 << 10
	DefaultRetryFor       = 24 * time.Hour
	DefaultDisableAfter   = 72 * time.Hour
	DefaultPoll           = time.Second
	DefaultLogKeep        = 7 * 24 * time.Hour
	// maxURL bounds a hook's URL.
	maxURL = 2048
	// batch is how many hub events one outbox transaction takes.
	batch = 500
)

// DefaultBackoff spaces a failing hook's attempts: 5 s doubling up to an
// hour, so a day of retries is about 30 attempts.
func DefaultBackoff() backoff.Policy { return backoff.Policy{Base: 5 * time.Second, Max: time.Hour} }

// Options configure a Service; Store is required, Hub for delivery.
type Options struct {
	Store *store.Store
	Hub   *notify.Hub
	// AllowPrivate lets hooks reach loopback, private and link-local
	// addresses (WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
	// MaxHooksPerKey bounds the hooks of one API key (WEBHOOK_MAX_PER_KEY).
	MaxHooksPerKey int
	// MaxAddresses bounds the address set of one hook (WEBHOOK_MAX_ADDRESSES).
	MaxAddresses int
	// Workers is how many hooks this process delivers to at once
	// (WEBHOOK_WORKERS): a slow receiver holds one of them.
	Workers int
	// Timeout bounds one attempt whole (WEBHOOK_TIMEOUT).
	Timeout time.Duration
	// MaxRead bounds what is read of a receiver's answer.
	MaxRead int64
	// RetryFor is how long an event is retried before it is given up
	// (logged "expired") and the hook moves on (WEBHOOK_RETRY_FOR).
	RetryFor time.Duration
	// DisableAfter disables a hook that has not had a success for this
	// long (WEBHOOK_DISABLE_AFTER).
	DisableAfter time.Duration
	// Backoff spaces a failing hook's attempts.
	Backoff backoff.Policy
	// Lease is how long a process holds a hook it delivers to without
	// renewing it (each attempt renews it); a killed process's hooks are
	// taken over after it. Default Timeout + 10 s.
	Lease time.Duration
	// Poll is how often the outbox is checked for work queued by other
	// processes and for retries that came due.
	Poll time.Duration
	// LogKeep is how long delivery log entries are kept.
	LogKeep time.Duration
	Logger  *slog.Logger

	// Tests only: the resolver and the one loopback listener exempt from
	// the address check (safedial.Options).
	LookupHost  func(ctx context.Context, host string) ([]netip.Addr, error)
	ExemptAddrs []string
}

func (o *Options) defaults() {
	if o.MaxHooksPerKey <= 0 {
		o.MaxHooksPerKey = DefaultMaxHooksPerKey
	}
	if o.MaxAddresses <= 0 {
		o.MaxAddresses = DefaultMaxAddresses
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRead <= 0 {
		o.MaxRead = DefaultMaxRead
	}
	if o.RetryFor <= 0 {
		o.RetryFor = DefaultRetryFor
	}
	if o.DisableAfter <= 0 {
		o.DisableAfter = DefaultDisableAfter
	}
	if o.Backoff.Base <= 0 {
		o.Backoff = DefaultBackoff()
	}
	if o.Lease <= 0 {
		o.Lease = o.Timeout + 10*time.Second
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.LogKeep <= 0 {
		o.LogKeep = DefaultLogKeep
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Service manages hooks (the API's calls) and, once started, delivers
// their events.
type Service struct {
	o      Options
	client *http.Client
	owner  string // this process's lease name; each claim adds a number
	claims atomic.Uint64
	wake   chan struct{}

	mu   sync.Mutex
	busy map[string]bool // hooks this process's workers hold
	// attempted are told of every attempt (OnAttempt).
	attempted []func(outcome string, took time.Duration)
	version   int64 // of the hooks index
	index     *index

	cancel context.CancelFunc
	done   chan struct{}
}

// New makes a Service that serves the API calls; Start also delivers.
func New(o Options) *Service {
	o.defaults()
	return &Service{o: o, client: newClient(o), owner: randomID("p_", 8), busy: map[string]bool{}, wake: make(chan struct{}, 1), version: -1}
}

// Start begins dispatching and delivering in the background; Close stops it.
func (s *Service) Start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.done = make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.dispatch(ctx)
	}()
	go func() {
		defer wg.Done()
		s.deliverLoop(ctx)
	}()
	go func() {
		wg.Wait()
		close(s.done)
	}()
}

// Close stops dispatching and delivering and waits for the workers: an
// attempt under way is abandoned, and its event sent again later.
func (s *Service) Close() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
}

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func randomID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

func nowMs() int64 { return time.Now().UnixMilli() }
