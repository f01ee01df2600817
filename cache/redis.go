package cache

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisOptions tune the fail-open behaviour; zero values pick the defaults.
type RedisOptions struct {
	Prefix   string        // key namespace; default "tonql:"
	Timeout  time.Duration // per operation, dial included; default 50ms
	Cooldown time.Duration // how long to skip Redis after a failure; default 1s
	Now      func() time.Time
}

// Redis is a Cache over go-redis that fails open: a failed or slow call is a
// miss, and after a failure Redis is skipped for Cooldown so that an outage
// costs one timeout per cooldown period instead of one per request.
type Redis struct {
	client   *redis.Client
	prefix   string
	timeout  time.Duration
	cooldown time.Duration
	now      func() time.Time

	skipUntil atomic.Int64 // unix nanos; 0 = healthy
	hits      atomic.Int64
	misses    atomic.Int64
	errors    atomic.Int64
}

// NewRedisURL connects lazily to a redis:// URL (nothing is dialled here).
func NewRedisURL(url string, o RedisOptions) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	return newRedis(opt, o), nil
}

// NewRedisAddr is NewRedisURL for a bare host:port.
func NewRedisAddr(addr string, o RedisOptions) *Redis {
	return newRedis(&redis.Options{Addr: addr}, o)
}

func newRedis(opt *redis.Options, o RedisOptions) *Redis {
	if o.Prefix == "" {
		o.Prefix = "tonql:"
	}
	if o.Timeout <= 0 {
		o.Timeout = 50 * time.Millisecond
	}
	if o.Cooldown <= 0 {
		o.Cooldown = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	// Every knob that could make a call wait longer than Timeout is capped,
	// and retries are off: a retry doubles the worst case for a cache.
	opt.DialTimeout = o.Timeout
	opt.ReadTimeout = o.Timeout
	opt.WriteTimeout = o.Timeout
	opt.PoolTimeout = o.Timeout
	opt.MaxRetries = -1
	opt.DialerRetries = 1 // the default, 5 dials 100ms apart, is half a second per outage
	opt.ContextTimeoutEnabled = true
	opt.DisableIdentity = true
	return &Redis{client: redis.NewClient(opt), prefix: o.Prefix, timeout: o.Timeout,
		cooldown: o.Cooldown, now: o.Now}
}

func (r *Redis) healthy() bool {
	until := r.skipUntil.Load()
	return until == 0 || r.now().UnixNano() >= until
}

func (r *Redis) fail() {
	r.errors.Add(1)
	r.skipUntil.Store(r.now().Add(r.cooldown).UnixNano())
}

func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool) {
	if !r.healthy() {
		r.misses.Add(1)
		return nil, false
	}
	opCtx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	b, err := r.client.Get(opCtx, r.prefix+key).Bytes()
	switch {
	case err == nil:
		r.skipUntil.Store(0)
		r.hits.Add(1)
		return b, true
	case errors.Is(err, redis.Nil):
		r.skipUntil.Store(0)
	case ctx.Err() != nil:
		// the caller gave up; that says nothing about Redis
	default:
		r.fail()
	}
	r.misses.Add(1)
	return nil, false
}

func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration) {
	if ttl <= 0 || !r.healthy() {
		return
	}
	opCtx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := r.client.Set(opCtx, r.prefix+key, value, ttl).Err(); err != nil && ctx.Err() == nil {
		r.fail()
	}
}

// Stats reports hits, misses and backend failures since start.
func (r *Redis) Stats() (hits, misses, errs int64) {
	return r.hits.Load(), r.misses.Load(), r.errors.Load()
}

// Counts reports hits and misses since start (Counter).
func (r *Redis) Counts() (hits, misses int64) { return r.hits.Load(), r.misses.Load() }

// Close releases the connection pool.
func (r *Redis) Close() error { return r.client.Close() }
