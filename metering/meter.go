// Package metering counts request units per API key and persists them to
// the store exactly once: none lost on a graceful restart or a Redis
// outage, none counted twice.
//
// A unit is counted in memory (a map increment: requests never wait on
// Redis or the database). The owner goroutine (Run) turns what was counted
// into batches, each with a random id:
//
//   - without Redis, a batch goes straight to the store every FlushEvery;
//   - with Redis, a batch is pushed every PushEvery as a hash of its own,
//     listed in a set, so all server processes count into one place; every
//     FlushEvery any process moves the listed batches into the store.
//
// The store records the id of every batch it applies and skips one it has
// seen (store.AddUnits), which makes every step retryable: a push that
// timed out (maybe applied, maybe not) is retried with the same id, or,
// while Redis is down, written to the store directly; if it did reach
// Redis, the later move finds the id already applied. A batch moved into
// the store but not yet deleted from Redis (a crash in between) is deleted
// by the next move without being counted again.
//
// What is not covered: a process killed without a graceful stop loses the
// units it counted since its last push (at most PushEvery with Redis,
// FlushEvery without).
package metering

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Store persists units: AddUnits adds them in one transaction and skips a
// batch id it has applied before.
type Store interface {
	AddUnits(ctx context.Context, batch string, units map[string]int64) error
}

// Options configure a Meter; zero values pick the defaults.
type Options struct {
	Store      Store
	Redis      *redis.Client // nil: batches go to the store directly
	Prefix     string        // Redis key namespace; default "tonql:"
	PushEvery  time.Duration // memory -> Redis; default 100ms
	FlushEvery time.Duration // -> store; default 2s
	Logger     *slog.Logger
}

// Meter counts units. Count is safe for concurrent use; Run is its owner
// goroutine.
type Meter struct {
	store     Store
	rdb       *redis.Client
	keys      redisKeys
	push      *redis.Script
	pushEvery time.Duration
	every     time.Duration
	log       *slog.Logger

	mu      sync.Mutex
	counted map[string]int64 // counted since the last batch was cut

	flushMu   sync.Mutex // one push or flush at a time; guards unsent
	unsent    []batch    // cut but not yet in Redis or the store
	total     atomic.Int64
	redisErrs atomic.Int64
}

// batch is a set of unit counts with the id that makes applying it
// idempotent.
type batch struct {
	id    string
	units map[string]int64
}

// New makes a Meter.
func New(o Options) *Meter {
	if o.Prefix == "" {
		o.Prefix = "tonql:"
	}
	if o.PushEvery <= 0 {
		o.PushEvery = 100 * time.Millisecond
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Meter{store: o.Store, rdb: o.Redis, keys: newRedisKeys(o.Prefix), push: redis.NewScript(pushScript),
		pushEvery: o.PushEvery, every: o.FlushEvery, log: o.Logger, counted: map[string]int64{}}
}

// Count records one unit for the key.
func (m *Meter) Count(keyID string) {
	m.total.Add(1)
	m.mu.Lock()
	m.counted[keyID]++
	m.mu.Unlock()
}

// Counted is how many units this process has counted since it started
// (for /metrics).
func (m *Meter) Counted() int64 { return m.total.Load() }

// RedisErrors is how many pushes or moves failed on Redis (for /metrics).
func (m *Meter) RedisErrors() int64 { return m.redisErrs.Load() }

// Run pushes and flushes until ctx ends, then flushes once more on a fresh
// context and returns that flush's error. Stop it only after the HTTP
// server has drained, so no Count comes after the last flush.
func (m *Meter) Run(ctx context.Context) error {
	push := time.NewTicker(m.pushEvery)
	defer push.Stop()
	flush := time.NewTicker(m.every)
	defer flush.Stop()
	for {
		select {
		case <-push.C:
			if m.rdb != nil {
				m.warn(ctx, m.Push(ctx))
			}
		case <-flush.C:
			m.warn(ctx, m.Flush(ctx))
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
			defer cancel()
			return m.Flush(fctx)
		}
	}
}

func (m *Meter) warn(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		m.log.Warn("metering: will retry", "err", err)
	}
}

// Push cuts a batch of what was counted and sends every unsent batch to
// Redis. A batch Redis does not take goes to the store instead. Without
// Redis, Push is Flush.
func (m *Meter) Push(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	return m.sendLocked(ctx)
}

// Flush pushes, then moves every batch listed in Redis (this process's and
// any other's) into the store.
func (m *Meter) Flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	err := m.sendLocked(ctx)
	if m.rdb != nil {
		err = errors.Join(err, m.moveToStore(ctx))
	}
	return err
}

func (m *Meter) sendLocked(ctx context.Context) error {
	m.mu.Lock()
	if len(m.counted) > 0 {
		m.unsent = append(m.unsent, batch{id: newBatchID(), units: m.counted})
		m.counted = map[string]int64{}
	}
	m.mu.Unlock()
	var errs []error
	kept := m.unsent[:0]
	for _, b := range m.unsent {
		if m.rdb != nil {
			err := m.pushToRedis(ctx, b)
			if err == nil {
				continue
			}
			m.redisErrs.Add(1)
			errs = append(errs, err)
		}
		if err := m.store.AddUnits(ctx, b.id, b.units); err != nil {
			errs = append(errs, err)
			kept = append(kept, b) // retried next time, same id
		}
	}
	clear(m.unsent[len(kept):])
	m.unsent = kept
	return errors.Join(errs...)
}

func newBatchID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
