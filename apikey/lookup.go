package apikey

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/store"
)

// Source is where keys live (the store).
type Source interface {
	KeyByHash(ctx context.Context, hash string) (*store.APIKey, error)
}

// Lookup resolves keys with a short-lived in-memory cache in front of the
// store, so a request costs a hash and a map read instead of a query.
// Unknown keys are cached too, and the cache drops its least recently used
// entries when full, so a flood of random keys neither grows memory nor
// pushes out the keys in use. Store lookups of keys not in the cache are
// limited per client address (WithClient): every new well-formed key would
// otherwise cost a query, and one client sent 4,199 of them a second.
// A lookup that finds an active key does not count against the client. The
// price of caching is that a revocation made by another process takes
// effect within TTL.
type Lookup struct {
	src       Source
	ttl       time.Duration
	now       func() time.Time
	missRate  float64
	missBurst float64

	// Both LRUs are golang-lru's unlocked ones under mu: a lookup reads
	// the entry and the client's bucket in one critical section.
	mu      sync.Mutex
	entries *simplelru.LRU[string, entry]         // key hash -> entry
	buckets *simplelru.LRU[string, *clientBucket] // client address -> bucket

	hits, misses atomic.Int64
}

type entry struct {
	key     *store.APIKey // nil: unknown or revoked
	expires time.Time
}

// clientBucket is a token bucket kept by hand rather than with
// golang.org/x/time/rate: a lookup that found an active key gives its
// token back (refundMiss), which rate.Limiter cannot do once time moved.
type clientBucket struct {
	tokens float64
	last   time.Time
}

// LookupOptions tune the cache; zero values pick the defaults.
type LookupOptions struct {
	TTL        time.Duration // default 5s; negative disables caching
	MaxEntries int           // default 100,000; least recently used go first
	// MissRate and MissBurst limit store lookups of uncached keys per
	// client address: default 20 per second, 50 at once; a negative
	// MissRate disables the limit.
	MissRate  float64
	MissBurst int
	// MaxClients is how many client addresses are tracked (default 10,000;
	// least recently seen go first).
	MaxClients int
	Now        func() time.Time
}

// NewLookup makes a Lookup over src.
func NewLookup(src Source, o LookupOptions) *Lookup {
	if o.TTL == 0 {
		o.TTL = 5 * time.Second
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 100_000
	}
	if o.MissRate == 0 {
		o.MissRate = 20
	}
	if o.MissBurst <= 0 {
		o.MissBurst = 50
	}
	if o.MaxClients <= 0 {
		o.MaxClients = 10_000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	// NewLRU fails only for a size below 1, excluded above.
	entries, _ := simplelru.NewLRU[string, entry](o.MaxEntries, nil)
	buckets, _ := simplelru.NewLRU[string, *clientBucket](o.MaxClients, nil)
	return &Lookup{src: src, ttl: o.TTL, now: o.Now, missRate: o.MissRate, missBurst: float64(o.MissBurst),
		entries: entries, buckets: buckets}
}

type clientKeyType struct{}

// WithClient records the client's address (an IP, or an IPv6 /64) for the
// miss limit and for the limit on keyless streams per address.
func WithClient(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientKeyType{}, addr)
}

// ClientAddr is the address WithClient recorded; "" when none was.
func ClientAddr(ctx context.Context) string { return clientOf(ctx) }

func clientOf(ctx context.Context) string {
	addr, _ := ctx.Value(clientKeyType{}).(string)
	return addr
}

// Find returns the active key, or nil for a malformed, unknown or revoked
// one. An error means the store could not answer (already classified by the
// store as unavailable or timeout), or the client has looked up too many
// uncached keys (RateLimited).
func (l *Lookup) Find(ctx context.Context, key string) (*store.APIKey, error) {
	if !WellFormed(key) {
		return nil, nil
	}
	h := Hash(key)
	now := l.now()
	client := clientOf(ctx)
	l.mu.Lock()
	if e, ok := l.entries.Get(h); ok && now.Before(e.expires) {
		l.mu.Unlock()
		l.hits.Add(1)
		return e.key, nil
	}
	l.misses.Add(1)
	wait, ok := l.takeMiss(client, now)
	l.mu.Unlock()
	if !ok {
		return nil, apperr.New(apperr.RateLimited,
			"too many lookups of unknown API keys from this address; retry after %s", max(time.Second, wait.Round(time.Second)))
	}
	k, err := l.src.KeyByHash(ctx, h)
	if err != nil {
		l.refundMiss(client)
		return nil, err
	}
	if k != nil && !k.Active() {
		k = nil
	}
	if k != nil {
		l.refundMiss(client) // only unknown keys count against a client
	}
	if l.ttl > 0 {
		l.store(h, k, now.Add(l.ttl))
	}
	return k, nil
}

func (l *Lookup) store(h string, k *store.APIKey, expires time.Time) {
	l.mu.Lock()
	l.entries.Add(h, entry{key: k, expires: expires})
	l.mu.Unlock()
}

// Counts reports cache hits and misses (lookups that went to the store or
// were refused by the miss limit) since start.
func (l *Lookup) Counts() (hits, misses int64) { return l.hits.Load(), l.misses.Load() }

// takeMiss takes one token of the client's bucket; l.mu is held.
func (l *Lookup) takeMiss(client string, now time.Time) (time.Duration, bool) {
	if l.missRate < 0 || client == "" {
		return 0, true
	}
	b, ok := l.buckets.Get(client)
	if !ok {
		b = &clientBucket{tokens: l.missBurst, last: now}
		l.buckets.Add(client, b) // the least recently seen client goes when full
	}
	if now.After(b.last) {
		b.tokens = math.Min(l.missBurst, b.tokens+now.Sub(b.last).Seconds()*l.missRate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return time.Duration((1 - b.tokens) / l.missRate * float64(time.Second)), false
}

func (l *Lookup) refundMiss(client string) {
	if l.missRate < 0 || client == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.buckets.Peek(client); ok {
		b.tokens = math.Min(l.missBurst, b.tokens+1)
	}
}
