package server_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/walletmsg"
	"github.com/tonql/tonql/metering"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// accessEnv is a server with personal endpoints over a real store, and
// optionally real Redis for metering.
type accessEnv struct {
	tb      testing.TB
	st      *store.Store
	rdb     *redis.Client
	prefix  string // Redis key namespace of this test
	res     *resolvers.Resolver
	logs    *testenv.SyncBuffer
	limiter *ratelimit.Limiter
	access  *server.Access
}

type accessConfig struct {
	require bool
	redis   bool
	fees    bool // a real fee estimator (emulator) behind estimateFee
	limit   ratelimit.Limit
	now     func() time.Time // limiter clock
}

func newAccessEnv(t testing.TB, db testenv.Database, c accessConfig) *accessEnv {
	t.Helper()
	st := storetest.Open(t, db.URL)
	e := &accessEnv{tb: t, st: st, logs: &testenv.SyncBuffer{}, res: &resolvers.Resolver{Store: st}}
	if c.fees {
		e.res.Fees = fees.New(st, nil, fees.Options{Emulators: 2})
	}
	if c.redis {
		var err error
		e.rdb, err = metering.DialRedis("redis://" + testenv.RedisAddr(t) + "/0")
		require.NoError(t, err)
		t.Cleanup(func() { e.rdb.Close() })
		var b [6]byte
		_, _ = rand.Read(b[:])
		e.prefix = "tonql-test-" + hex.EncodeToString(b[:]) + ":"
	}
	e.limiter = ratelimit.New(c.now)
	e.access = &server.Access{
		Keys:       apikey.NewLookup(st, apikey.LookupOptions{}),
		Limiter:    e.limiter,
		Default:    c.limit,
		RequireKey: c.require,
	}
	return e
}

// meter makes a meter on the env's store and Redis, as one server process
// would.
func (e *accessEnv) meter() *metering.Meter {
	return metering.New(metering.Options{Store: e.st, Redis: e.rdb, Prefix: e.prefix, FlushEvery: 50 * time.Millisecond})
}

// startMeter runs the meter's owner goroutine; stop ends it and returns
// its final flush's error.
func startMeter(m *metering.Meter) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	return func() error { cancel(); return <-done }
}

// handler builds the root handler with the given meter (nil: no metering).
func (e *accessEnv) handler(m *metering.Meter) http.Handler {
	a := *e.access
	a.Meter = m
	return newServer(e.tb, server.Options{Resolver: e.res, Access: &a, RequestTimeout: 30 * time.Second,
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil))})
}

// newKey creates a key with an optional own limit and returns it in the
// clear with its record.
func (e *accessEnv) newKey(t testing.TB, name string, lim ratelimit.Limit) (string, *store.APIKey) {
	t.Helper()
	key, id := apikey.Generate()
	k, err := e.st.CreateKey(context.Background(), store.APIKey{ID: id, Hash: apikey.Hash(key), Name: name,
		RateLimit: lim.Rate, RateBurst: lim.Burst})
	require.NoError(t, err)
	return key, k
}

func (e *accessEnv) units(t testing.TB, key string) int64 {
	t.Helper()
	k, err := e.st.KeyByHash(context.Background(), apikey.Hash(key))
	require.NoError(t, err)
	require.NotNil(t, k)
	return k.Units
}

// walletDeploy is the body of an estimateFee request that deploys a v3R2
// wallet to its fresh address: an estimate that succeeds on an empty store.
func walletDeploy(t testing.TB) string {
	t.Helper()
	body, err := walletmsg.Deploy(walletmsg.DefaultSubwallet)
	require.NoError(t, err)
	return body
}
