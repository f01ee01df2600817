// Package ratelimit keeps one token bucket per API key: a key may spend
// Burst requests at once and then Rate requests per second.
//
// New keeps the buckets in this process: with several servers behind one
// balancer, each enforces the limit on its own share of a key's traffic.
// NewShared keeps them in Redis, so the servers enforce it together, and
// falls back to the per-process buckets while Redis is unavailable
// (docs/OPERATIONS.md).
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Limit is a rate in requests per second and a bucket size. Rate <= 0 means
// unlimited.
type Limit struct {
	Rate  float64
	Burst int
}

// Limiter holds the buckets; safe for concurrent use.
type Limiter struct {
	now     func() time.Time
	buckets sync.Map // key id -> *bucket
	shared  *shared  // nil: buckets are per process only
}

type bucket struct {
	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// New makes a Limiter; now is the clock (time.Now in production, a fake
// clock in tests so rates are measured without sleeping).
func New(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{now: now}
}

// Allow takes one token from the key's bucket. When the bucket is empty it
// returns false and how long until the next token.
func (l *Limiter) Allow(key string, lim Limit) (bool, time.Duration) {
	if lim.Rate <= 0 {
		return true, 0
	}
	now := l.now()
	if l.shared != nil {
		if ok, wait, decided := l.shared.allow(key, lim, now); decided {
			return ok, wait
		}
	}
	return l.allowLocal(key, lim, now)
}

// allowLocal is the per-process token bucket.
func (l *Limiter) allowLocal(key string, lim Limit, now time.Time) (bool, time.Duration) {
	burst := float64(max(lim.Burst, 1))
	v, ok := l.buckets.Load(key)
	if !ok {
		v, _ = l.buckets.LoadOrStore(key, &bucket{tokens: burst, last: now})
	}
	b := v.(*bucket)
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.After(b.last) {
		b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*lim.Rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / lim.Rate * float64(time.Second))
	return false, wait
}

// Charge takes n more tokens of the key's bucket for work already admitted
// (the other calls of a JSON-RPC batch). It never refuses: the bucket may
// go into debt, and the key's next requests wait until it has refilled, so
// over time a key gets its rate in calls, not in requests.
func (l *Limiter) Charge(key string, lim Limit, n int) {
	if lim.Rate <= 0 || n <= 0 {
		return
	}
	now := l.now()
	if l.shared != nil && l.shared.charge(key, lim, n, now) {
		return
	}
	l.chargeLocal(key, lim, n, now)
}

func (l *Limiter) chargeLocal(key string, lim Limit, n int, now time.Time) {
	burst := float64(max(lim.Burst, 1))
	v, ok := l.buckets.Load(key)
	if !ok {
		v, _ = l.buckets.LoadOrStore(key, &bucket{tokens: burst, last: now})
	}
	b := v.(*bucket)
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.After(b.last) {
		b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*lim.Rate)
		b.last = now
	}
	b.tokens -= float64(n)
}
