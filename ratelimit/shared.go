package ratelimit

import (
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// SharedOptions make a Limiter whose buckets live in Redis, so all server
// processes on one Redis enforce a key's limit together
// (docs/OPERATIONS.md, "Rate limits"). Zero values pick the defaults.
type SharedOptions struct {
	Redis  *redis.Client
	Prefix string // Redis key namespace; default "tonql:"
	// Lease is how much of a key's rate a process takes from Redis at once
	// (at least one token): tokens are then spent locally, so requests
	// reach Redis about once per lease, not once each. Default 10ms.
	Lease time.Duration
	// Timeout bounds one Redis call; a request never waits longer for
	// Redis. Default 50ms: far above a healthy round trip (~0.1ms), so
	// only a sick Redis trips the fallback, not a GC pause.
	Timeout time.Duration
	// RetryEvery is how long the local buckets decide alone after Redis
	// failed, before Redis is tried again. Default 1s.
	RetryEvery time.Duration
	Now        func() time.Time // default time.Now
	Logger     *slog.Logger     // default slog.Default()
}

// maxLease caps one lease so a huge rate cannot park a huge number of
// tokens in one process.
const maxLease = 10_000

// shared is the Redis side of a Limiter.
type shared struct {
	rdb     *redis.Client
	script  *redis.Script
	prefix  string
	lease   time.Duration
	timeout time.Duration
	retry   time.Duration
	log     *slog.Logger

	leases    sync.Map     // key id -> *lease
	downUntil atomic.Int64 // unix ns before which Redis is not tried
	down      atomic.Bool  // the fallback was logged and not yet the recovery
}

// lease is what this process holds of one key's shared bucket.
type lease struct {
	mu     sync.Mutex
	left   int64     // tokens taken from Redis and not yet spent
	denied time.Time // Redis said the bucket is empty until then
}

// NewShared makes a Limiter over Redis; it falls back to per-process
// buckets while Redis fails or is slower than Timeout.
func NewShared(o SharedOptions) *Limiter {
	l := New(o.Now)
	s := &shared{rdb: o.Redis, script: newTakeScript(), prefix: o.Prefix, lease: o.Lease,
		timeout: o.Timeout, retry: o.RetryEvery, log: o.Logger}
	if s.prefix == "" {
		s.prefix = "tonql:"
	}
	s.prefix += "ratelimit:"
	if s.lease <= 0 {
		s.lease = 10 * time.Millisecond
	}
	if s.timeout <= 0 {
		s.timeout = 50 * time.Millisecond
	}
	if s.retry <= 0 {
		s.retry = time.Second
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	l.shared = s
	return l
}

// allow decides from the lease, asking Redis when it is spent. decided is
// false when Redis is unavailable: the caller's local bucket decides.
func (s *shared) allow(key string, lim Limit, now time.Time) (ok bool, wait time.Duration, decided bool) {
	if s.isDown(now) {
		return false, 0, false
	}
	v, found := s.leases.Load(key)
	if !found {
		v, _ = s.leases.LoadOrStore(key, &lease{})
	}
	ls := v.(*lease)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.left > 0 {
		ls.left--
		return true, 0, true
	}
	if now.Before(ls.denied) {
		return false, ls.denied.Sub(now), true
	}
	// Re-checked under the lock: the request that held it may have just
	// found Redis down, and the ones queued behind it must not each wait
	// for the timeout again.
	if s.isDown(now) {
		return false, 0, false
	}
	want := int64(min(maxLease, max(1, math.Ceil(lim.Rate*s.lease.Seconds()))))
	got, wait, err := s.take(key, lim, want, now)
	if err != nil {
		s.fail(now, err)
		return false, 0, false
	}
	s.recovered()
	if got > 0 {
		ls.left = got - 1
		return true, 0, true
	}
	ls.denied = now.Add(wait)
	return false, wait, true
}

// charge takes n tokens, from the lease first, then from Redis even into
// debt; false when Redis is unavailable (the local bucket is charged).
func (s *shared) charge(key string, lim Limit, n int, now time.Time) bool {
	if s.isDown(now) {
		return false
	}
	v, found := s.leases.Load(key)
	if !found {
		v, _ = s.leases.LoadOrStore(key, &lease{})
	}
	ls := v.(*lease)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	need := int64(n)
	if ls.left >= need {
		ls.left -= need
		return true
	}
	need -= ls.left
	ls.left = 0
	if _, _, err := s.takeForced(key, lim, need, now); err != nil {
		s.fail(now, err)
		return false
	}
	s.recovered()
	return true
}

func (s *shared) isDown(now time.Time) bool { return now.UnixNano() < s.downUntil.Load() }

// fail switches to the local buckets for RetryEvery and logs the first
// failure of an outage only, not one line per request.
func (s *shared) fail(now time.Time, err error) {
	s.downUntil.Store(now.Add(s.retry).UnixNano())
	if s.down.CompareAndSwap(false, true) {
		s.log.Warn("ratelimit: Redis unavailable, each process enforces rate limits alone until it answers", "err", err)
	}
}

func (s *shared) recovered() {
	if s.down.Load() && s.down.CompareAndSwap(true, false) {
		s.log.Info("ratelimit: Redis answers again, rate limits are shared")
	}
}
