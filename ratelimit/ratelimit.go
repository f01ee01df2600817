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
	"sync"
	"time"

	"golang.org/x/time/rate"
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

// bucket is a key's local token bucket: golang.org/x/time/rate's, given
// the clock's time on every call so tests can run on a fake clock. lim is
// what it was set to, so a key whose limit changed is re-set once, not
// on every request.
type bucket struct {
	mu  sync.Mutex
	lim Limit
	rl  *rate.Limiter
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

// local returns the key's bucket set to lim, full when new.
func (l *Limiter) local(key string, lim Limit, now time.Time) *bucket {
	v, ok := l.buckets.Load(key)
	if !ok {
		burst := max(lim.Burst, 1)
		v, _ = l.buckets.LoadOrStore(key, &bucket{lim: lim, rl: rate.NewLimiter(rate.Limit(lim.Rate), burst)})
	}
	b := v.(*bucket)
	b.mu.Lock()
	if b.lim != lim {
		b.rl.SetLimitAt(now, rate.Limit(lim.Rate))
		b.rl.SetBurstAt(now, max(lim.Burst, 1))
		b.lim = lim
	}
	b.mu.Unlock()
	return b
}

// allowLocal is the per-process token bucket. The wait is read after the
// refusal, not reserved: a refused request takes nothing.
func (l *Limiter) allowLocal(key string, lim Limit, now time.Time) (bool, time.Duration) {
	b := l.local(key, lim, now)
	if b.rl.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.rl.TokensAt(now)
	return false, time.Duration(missing / lim.Rate * float64(time.Second))
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

// chargeLocal goes into debt by reservations that are never cancelled;
// rate.Limiter reserves at most a burst at once, so a larger charge is
// taken a burst at a time.
func (l *Limiter) chargeLocal(key string, lim Limit, n int, now time.Time) {
	b := l.local(key, lim, now)
	burst := max(lim.Burst, 1)
	for n > 0 {
		take := min(n, burst)
		b.rl.ReserveN(now, take)
		n -= take
	}
}
