// Package metering counts request units per API key and persists them to
// the store without losing or doubling any.
//
// Without Redis a unit is a map increment in memory; the owner goroutine
// (Run) moves the counts to the store every FlushEvery and once more when
// it stops, which serve does after draining requests.
//
// With Redis a unit is one HINCRBY into a shared "pending" hash, so every
// server process counts into one place and a crashed process loses nothing
// that reached Redis. Flushing renames "pending" to a batch of its own
// (atomically, with the batch's id recorded in a set), writes the batch to
// the store in one transaction that also records the batch id, and only
// then deletes the batch from Redis. Any process, this one or the next,
// finishes batches left behind by a crash; the recorded id makes a replay
// of an already committed batch a no-op. When Redis fails, units are
// counted in memory (and go straight to the store) until it answers again.
package metering

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Store persists units: AddUnits adds them in one transaction and, for a
// non-empty batch id, skips a batch it has applied before.
type Store interface {
	AddUnits(ctx context.Context, batch string, units map[string]int64) error
}

// Options configure a Meter; zero values pick the defaults.
type Options struct {
	Store      Store
	Redis      *redis.Client // nil: count in memory only
	Prefix     string        // Redis key namespace; default "tonql:"
	FlushEvery time.Duration // default 2s
	Timeout    time.Duration // per counting call to Redis; default 50ms
	Cooldown   time.Duration // how long to count in memory after a Redis failure; default 1s
	Logger     *slog.Logger
}

// Meter counts units. Count is safe for concurrent use; Run is its owner
// goroutine.
type Meter struct {
	store    Store
	rdb      *redis.Client
	keys     redisKeys
	move     *redis.Script
	every    time.Duration
	timeout  time.Duration
	cooldown time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	pending map[string]int64 // counted in memory, not yet in the store

	flushMu   sync.Mutex // one flush at a time
	counted   atomic.Int64
	redisErrs atomic.Int64
	skipUntil atomic.Int64 // unix nanos until which Redis is skipped
}

// New makes a Meter.
func New(o Options) *Meter {
	if o.Prefix == "" {
		o.Prefix = "tonql:"
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = 2 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 50 * time.Millisecond
	}
	if o.Cooldown <= 0 {
		o.Cooldown = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Meter{store: o.Store, rdb: o.Redis, keys: newRedisKeys(o.Prefix),
		move: redis.NewScript(moveScript), every: o.FlushEvery,
		timeout: o.Timeout, cooldown: o.Cooldown, log: o.Logger, pending: map[string]int64{}}
}

// Count records one unit for the key. It never fails: when Redis cannot
// take the unit, memory does.
func (m *Meter) Count(ctx context.Context, keyID string) {
	m.counted.Add(1)
	if m.rdb != nil && time.Now().UnixNano() >= m.skipUntil.Load() {
		// The unit belongs to an accepted request even if its client has
		// gone, so the client's cancellation must not drop it.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.timeout)
		err := m.rdb.HIncrBy(cctx, m.keys.pending, keyID, 1).Err()
		cancel()
		if err == nil {
			return
		}
		m.redisFailed(err)
	}
	m.mu.Lock()
	m.pending[keyID]++
	m.mu.Unlock()
}

func (m *Meter) redisFailed(err error) {
	m.redisErrs.Add(1)
	m.skipUntil.Store(time.Now().Add(m.cooldown).UnixNano())
	m.log.Warn("metering: Redis failed; counting in memory", "err", err)
}

// Counted is how many units this process has counted since it started
// (for /metrics).
func (m *Meter) Counted() int64 { return m.counted.Load() }

// RedisErrors is how many counting calls to Redis failed (for /metrics).
func (m *Meter) RedisErrors() int64 { return m.redisErrs.Load() }

// Run flushes every FlushEvery until ctx ends, then flushes once more on a
// fresh context and returns that flush's error. Stop it only after the
// HTTP server has drained, so no Count comes after the last flush.
func (m *Meter) Run(ctx context.Context) error {
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := m.Flush(ctx); err != nil && ctx.Err() == nil {
				m.log.Warn("metering: flush failed; will retry", "err", err)
			}
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
			defer cancel()
			return m.Flush(fctx)
		}
	}
}

// Flush moves every unit counted so far (in memory and, with Redis, in
// Redis, including batches other processes left behind) into the store.
func (m *Meter) Flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	err := m.flushMemory(ctx)
	if m.rdb != nil {
		err = errors.Join(err, m.flushRedis(ctx))
	}
	return err
}

func (m *Meter) flushMemory(ctx context.Context) error {
	m.mu.Lock()
	batch := m.pending
	m.pending = map[string]int64{}
	m.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := m.store.AddUnits(ctx, "", batch); err != nil {
		// Put the units back for the next flush. The transaction either
		// committed or did not; on a failed commit nothing was added.
		m.mu.Lock()
		for id, n := range batch {
			m.pending[id] += n
		}
		m.mu.Unlock()
		return err
	}
	return nil
}
