// Package cache keeps small, short-lived answers (fee estimates) close to the
// server: in Redis when one is configured, in process memory otherwise.
//
// A cache is an optimisation, never a dependency: every implementation here
// fails open. A broken or slow backend turns into a miss, not an error, and
// costs a request at most one short timeout.
package cache

import (
	"context"
	"time"
)

// Cache stores opaque values under string keys for a while.
type Cache interface {
	// Get returns the value and true on a hit; any failure is a miss.
	Get(ctx context.Context, key string) ([]byte, bool)
	// Set stores a value; failures are swallowed (and counted by the backend).
	Set(ctx context.Context, key string, value []byte, ttl time.Duration)
}

// Counter is a Cache that counts its lookups (both implementations here).
type Counter interface {
	Counts() (hits, misses int64)
}

// New returns a Redis cache when redisURL is set (redis://host:port/db), and
// an in-process LRU of maxEntries otherwise.
func New(redisURL string, maxEntries int) (Cache, error) {
	if redisURL == "" {
		return NewMemory(maxEntries), nil
	}
	return NewRedisURL(redisURL, RedisOptions{})
}
