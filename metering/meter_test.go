package metering_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/metering"
	"github.com/tonql/tonql/store"
)

// backend is one combination the meter must be exact on.
type backend struct {
	name   string
	st     *store.Store
	rdb    *redis.Client // nil: memory only
	prefix string
}

// forEachBackend runs fn on SQLite and Postgres, each without and with Redis.
func forEachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, db := range testenv.Databases(t) {
		for _, withRedis := range []bool{false, true} {
			name := db.Name + "/memory"
			if withRedis {
				name = db.Name + "/redis"
			}
			t.Run(name, func(t *testing.T) {
				st := storetest.Open(t, db.URL)
				b := backend{name: name, st: st, prefix: randomPrefix()}
				if withRedis {
					b.rdb = redisClient(t)
				}
				fn(t, b)
			})
		}
	}
}

func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	rdb, err := metering.DialRedis("redis://" + testenv.RedisAddr(t) + "/0")
	require.NoError(t, err)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func randomPrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "tonql-test-" + hex.EncodeToString(b[:]) + ":"
}

func (b backend) meter() *metering.Meter {
	return metering.New(metering.Options{Store: b.st, Redis: b.rdb, Prefix: b.prefix,
		PushEvery: 5 * time.Millisecond, FlushEvery: 20 * time.Millisecond})
}

func newKey(t *testing.T, st *store.Store, name string) *store.APIKey {
	t.Helper()
	key, id := apikey.Generate()
	k, err := st.CreateKey(context.Background(), store.APIKey{ID: id, Hash: apikey.Hash(key), Name: name})
	require.NoError(t, err)
	return k
}

func units(t *testing.T, st *store.Store, hash string) int64 {
	t.Helper()
	k, err := st.KeyByHash(context.Background(), hash)
	require.NoError(t, err)
	require.NotNil(t, k)
	return k.Units
}

// run starts the meter's owner goroutine and returns the function that
// stops it and waits, as serve does on shutdown.
func run(t *testing.T, m *metering.Meter) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	return func() {
		cancel()
		require.NoError(t, <-done)
	}
}

// Three processes in turn count from 16 goroutines each, with periodic
// flushes racing the counting; every unit arrives exactly once.
func TestExactAcrossRestarts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		a, c := newKey(t, b.st, "a"), newKey(t, b.st, "c")
		const perProcess, workers = 3000, 16
		for range 3 {
			m := b.meter()
			stop := run(t, m)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := w; i < perProcess; i += workers {
						id := a.ID
						if i%3 == 0 {
							id = c.ID
						}
						m.Count(id)
					}
				})
			}
			wg.Wait()
			stop()
		}
		require.Equal(t, int64(3*2000), units(t, b.st, a.Hash))
		require.Equal(t, int64(3*1000), units(t, b.st, c.Hash))
	})
}

// A process that died after moving units into a batch, or even after
// committing the batch but before deleting it, loses and doubles nothing:
// the next process finishes the batch.
func TestRecoversBatchesLeftByACrash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.rdb == nil {
			t.Skip("batches exist only with Redis")
		}
		ctx := context.Background()
		k := newKey(t, b.st, "k")
		// This process counted 7 units; a crashed one left a batch of 5 in
		// Redis and one of 11 already in the store but not yet deleted from
		// Redis (the same state a push that timed out after landing, then
		// written to the store directly, leaves).
		m := b.meter()
		for range 7 {
			m.Count(k.ID)
		}
		keys := struct{ batch, batches string }{b.prefix + "{units}:batch:", b.prefix + "{units}:batches"}
		require.NoError(t, b.rdb.HSet(ctx, keys.batch+"lost", k.ID, 5).Err())
		require.NoError(t, b.rdb.HSet(ctx, keys.batch+"done", k.ID, 11).Err())
		require.NoError(t, b.rdb.SAdd(ctx, keys.batches, "lost", "done").Err())
		require.NoError(t, b.st.AddUnits(ctx, "done", map[string]int64{k.ID: 11}))

		require.NoError(t, m.Flush(ctx))
		require.Equal(t, int64(7+5+11), units(t, b.st, k.Hash))
		// A late retry of the batch already applied changes nothing.
		require.NoError(t, b.rdb.HSet(ctx, keys.batch+"done", k.ID, 11).Err())
		require.NoError(t, b.rdb.SAdd(ctx, keys.batches, "done").Err())
		require.NoError(t, m.Flush(ctx))
		require.Equal(t, int64(7+5+11), units(t, b.st, k.Hash))
		n, err := b.rdb.Exists(ctx, keys.batch+"lost", keys.batch+"done", keys.batches).Result()
		require.NoError(t, err)
		require.Zero(t, n, "Redis is left clean")
	})
}

// When Redis is unreachable every unit is counted in memory and reaches
// the store through the final flush.
func TestRedisDownCountsInMemory(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			k := newKey(t, st, "k")
			dead, err := metering.DialRedis("redis://127.0.0.1:1/0") // nothing listens on port 1
			require.NoError(t, err)
			defer dead.Close()
			logs := &testenv.SyncBuffer{}
			m := metering.New(metering.Options{Store: st, Redis: dead, Prefix: randomPrefix(),
				Logger: slog.New(slog.NewJSONHandler(logs, nil))})
			for range 500 {
				m.Count(k.ID)
			}
			// Redis refuses the push; the store takes the batch, so nothing failed.
			require.NoError(t, m.Push(ctx))
			require.Positive(t, m.RedisErrors())
			require.Equal(t, int64(500), units(t, st, k.Hash))
			for range 20 {
				m.Count(k.ID)
				require.NoError(t, m.Flush(ctx))
			}
			require.Equal(t, int64(520), units(t, st, k.Hash))
			require.Equal(t, int64(520), m.Counted())
			// One line for the outage, not one per attempt.
			require.Equal(t, 1, strings.Count(logs.String(), "\n"), logs.String())
			require.Contains(t, logs.String(), "Redis unavailable")
		})
	}
}

// Defect 11: batches pushed to Redis and not yet moved to the store were
// only in Redis; a Redis crash (no persistence, as in CI) lost them. Each
// process now keeps what it pushed until the store has it.
func TestRedisCrashLosesNoUnits(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			k := newKey(t, st, "k")
			srv := cachetest.StartRedis(t)
			rdb, err := metering.DialRedis("redis://" + srv.Addr + "/0")
			require.NoError(t, err)
			defer rdb.Close()
			logs := &testenv.SyncBuffer{}
			opts := metering.Options{Store: st, Redis: rdb, Logger: slog.New(slog.NewJSONHandler(logs, nil))}
			a, b := metering.New(opts), metering.New(opts) // two server processes
			for range 10 {
				for range 100 {
					a.Count(k.ID)
					b.Count(k.ID)
				}
				require.NoError(t, a.Push(ctx))
				require.NoError(t, b.Push(ctx))
			}
			srv.Stop() // 2,000 units in Redis only, before this change
			for range 5 {
				a.Count(k.ID)
			}
			require.NoError(t, a.Push(ctx), "the store takes the batch Redis refuses")
			srv.Restart() // empty
			require.NoError(t, b.Flush(ctx))
			require.NoError(t, a.Flush(ctx))
			require.Equal(t, int64(2005), units(t, st, k.Hash))
			// Flushing again changes nothing.
			require.NoError(t, a.Flush(ctx))
			require.NoError(t, b.Flush(ctx))
			require.Equal(t, int64(2005), units(t, st, k.Hash))
			require.Contains(t, logs.String(), "Redis unavailable")
			require.Contains(t, logs.String(), "Redis answers again")
		})
	}
}

// A push cancelled by its caller (serve shutting down while a push is under
// way) is no Redis outage: nothing is logged, and the units arrive exactly
// once with the next flush.
func TestCanceledPushIsNoOutage(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			k := newKey(t, st, "k")
			logs := &testenv.SyncBuffer{}
			m := metering.New(metering.Options{Store: st, Redis: redisClient(t), Prefix: randomPrefix(),
				Logger: slog.New(slog.NewJSONHandler(logs, nil))})
			for range 50 {
				m.Count(k.ID)
			}
			canceled, cancel := context.WithCancel(context.Background())
			cancel()
			_ = m.Push(canceled) // may fail: the store refuses a cancelled write too
			require.NotContains(t, logs.String(), "Redis unavailable")
			require.Zero(t, m.RedisErrors())
			require.NoError(t, m.Flush(context.Background()))
			require.Equal(t, int64(50), units(t, st, k.Hash))
		})
	}
}
