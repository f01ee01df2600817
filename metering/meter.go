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
// Redis is a buffer, never the only copy: a process keeps every batch it
// pushed until the batch is in the store. Every FlushEvery it writes its
// own pushed batches to the store (skipped if another process moved them
// already) and deletes them from Redis, then moves what other processes
// left listed (a process that died). So a Redis crash, which loses what
// Redis held, loses no units; a killed process loses no pushed units.
//
// What is not covered: a process killed without a graceful stop loses the
// units it counted since its last push (at most PushEvery with Redis,
// FlushEvery without), and if Redis dies in the same FlushEvery as the
// process, the batches that process had pushed since its last flush.
//
// An outage is logged when it starts and when it ends, not per attempt.
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

	"github.com/tonql/tonql/internal/ratelog"
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

	flushMu   sync.Mutex // one push or flush at a time; guards unsent, pushed
	unsent    []batch    // cut but not yet in Redis or the store
	pushed    []batch    // in Redis, and kept here until they are in the store
	total     atomic.Int64
	redisErrs atomic.Int64
	redisDown atomic.Bool // the outage was logged, its end not yet
	storeLog  *ratelog.Limiter
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
		pushEvery: o.PushEvery, every: o.FlushEvery, log: o.Logger, counted: map[string]int64{},
		storeLog: ratelog.New(o.Logger, time.Minute)}
}

// Count records one unit for the key.
func (m *Meter) Count(keyID string) {
	m.total.Add(1)
	m.mu.Lock()
	m.counted[keyID]++
	m.mu.Unlock()
}

// CountN records n units for the key (a JSON-RPC batch of n+1 calls is
// counted once by the middleware and n times by its handler).
func (m *Meter) CountN(keyID string, n int64) {
	if n <= 0 {
		return
	}
	m.total.Add(n)
	m.mu.Lock()
	m.counted[keyID] += n
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

// warn logs a failed store write at most once a minute (Redis failures
// are logged by redisFailed and redisAnswered, once per outage).
func (m *Meter) warn(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		m.storeLog.Warn("metering: the database did not take the units; they are kept and retried", err)
	}
}

func (m *Meter) redisFailed(err error) {
	// A call the caller gave up on (shutdown cancels the push under way)
	// says nothing of Redis: no outage is declared for it.
	if errors.Is(err, context.Canceled) {
		return
	}
	m.redisErrs.Add(1)
	if m.redisDown.CompareAndSwap(false, true) {
		m.log.Warn("metering: Redis unavailable; units go to the database directly until it answers", "err", err.Error())
	}
}

func (m *Meter) redisAnswered() {
	if m.redisDown.Load() && m.redisDown.CompareAndSwap(true, false) {
		m.log.Info("metering: Redis answers again")
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
		err = errors.Join(err, m.persistPushed(ctx), m.moveToStore(ctx))
	}
	return err
}

// persistPushed writes this process's pushed batches to the store (a
// batch another process moved already is skipped by its id), then deletes
// them from Redis. A batch the store does not take stays for the next
// flush; a failed delete only leaves a batch for a later move to skip.
func (m *Meter) persistPushed(ctx context.Context) error {
	var errs []error
	kept := m.pushed[:0]
	for _, b := range m.pushed {
		if err := m.store.AddUnits(ctx, b.id, b.units); err != nil {
			errs = append(errs, err)
			kept = append(kept, b)
			continue
		}
		if err := m.deleteBatch(ctx, b.id); err != nil {
			m.redisFailed(err)
		}
	}
	clear(m.pushed[len(kept):])
	m.pushed = kept
	return errors.Join(errs...)
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
				m.redisAnswered()
				m.pushed = append(m.pushed, b)
				continue
			}
			m.redisFailed(err)
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
