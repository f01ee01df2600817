package apikey

import (
	"context"
	"sync"
	"time"

	"github.com/tonql/tonql/store"
)

// Source is where keys live (the store).
type Source interface {
	KeyByHash(ctx context.Context, hash string) (*store.APIKey, error)
}

// Lookup resolves keys with a short-lived in-memory cache in front of the
// store, so a request costs a hash and a map read instead of a query.
// Unknown keys are cached too (a client retrying a bad key must not turn
// into a query per request). The price is that a revocation made by another
// process takes effect within TTL.
type Lookup struct {
	src Source
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.RWMutex
	entries map[string]entry
}

type entry struct {
	key     *store.APIKey // nil: unknown or revoked
	expires time.Time
}

// LookupOptions tune the cache; zero values pick the defaults.
type LookupOptions struct {
	TTL        time.Duration // default 5s; negative disables caching
	MaxEntries int           // default 100,000; the cache is emptied when full
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
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Lookup{src: src, ttl: o.TTL, max: o.MaxEntries, now: o.Now, entries: map[string]entry{}}
}

// Find returns the active key, or nil for a malformed, unknown or revoked
// one. An error means the store could not answer (already classified by the
// store as unavailable or timeout).
func (l *Lookup) Find(ctx context.Context, key string) (*store.APIKey, error) {
	if !WellFormed(key) {
		return nil, nil
	}
	h := Hash(key)
	now := l.now()
	l.mu.RLock()
	e, ok := l.entries[h]
	l.mu.RUnlock()
	if ok && now.Before(e.expires) {
		return e.key, nil
	}
	k, err := l.src.KeyByHash(ctx, h)
	if err != nil {
		return nil, err
	}
	if k != nil && !k.Active() {
		k = nil
	}
	if l.ttl > 0 {
		l.mu.Lock()
		if len(l.entries) >= l.max {
			// Emptying beats an LRU here: the cache only saves a query, and a
			// flood of random keys must not grow memory.
			clear(l.entries)
		}
		l.entries[h] = entry{key: k, expires: now.Add(l.ttl)}
		l.mu.Unlock()
	}
	return k, nil
}
