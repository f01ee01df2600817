package server_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
)

// sharedAccess is the env's Access with a limiter on the env's Redis, as
// one server process with REDIS_URL has.
func (e *accessEnv) sharedAccess(now func() time.Time) *server.Access {
	a := *e.access
	a.Limiter = ratelimit.NewShared(ratelimit.SharedOptions{Redis: e.rdb, Prefix: e.prefix, Now: now,
		Timeout: 5 * time.Second}) // a loaded test machine must not trip the fallback
	return &a
}

// Two servers on one Redis give a key its limit once in total, and each
// refusal is a 429 with Retry-After.
func TestSharedRateLimitTwoServers(t *testing.T) {
	db := testenv.Databases(t)[0]
	clk := &testClock{t: time.Unix(1_700_000_000, 0)}
	e := newAccessEnv(t, db, accessConfig{require: true, redis: true, limit: ratelimit.Limit{Rate: 20, Burst: 5}})
	key, _ := e.newKey(t, "shared", ratelimit.Limit{})
	var servers []http.Handler
	for range 2 {
		servers = append(servers, newServer(t, server.Options{Resolver: e.res, Access: e.sharedAccess(clk.Now),
			Logger: slog.New(slog.DiscardHandler)}))
	}
	const window = 10 * time.Second
	step := time.Second / 200 // 200 attempts per simulated second per server
	ok := 0
	for elapsed := time.Duration(0); elapsed < window; elapsed += step {
		for _, h := range servers {
			rec := doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions", "")
			switch rec.Code {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				require.NotEmpty(t, rec.Header().Get("Retry-After"))
			default:
				t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
			}
		}
		clk.Add(step)
	}
	want := 5 + 20*window.Seconds()
	require.InDelta(t, want, float64(ok), want*0.1)
}

// BenchmarkAccessShared is BenchmarkAccess's "key-redis" mode with the
// limiter shared through Redis (REDIS_URL set), for docs/PERFORMANCE.md.
func BenchmarkAccessShared(b *testing.B) {
	db := testenv.Databases(b)[0]
	e := newAccessEnv(b, db, accessConfig{redis: true, limit: ratelimit.Limit{Rate: 1e9, Burst: 1 << 30}})
	key, _ := e.newKey(b, "bench", ratelimit.Limit{})
	m := e.meter()
	stop := startMeter(m)
	b.Cleanup(func() { _ = stop() })
	a := e.sharedAccess(nil)
	a.Meter = m
	benchCheapRequest(b, server.New(server.Options{Resolver: e.res, Access: a, Logger: slog.New(slog.DiscardHandler)}),
		"/"+key+"/api/v2/estimateFee")
}
