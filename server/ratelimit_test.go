package server_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
)

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A key limited to N/s gets N/s (plus its burst) over a simulated window
// on every route, the refusals are 429 in the route's envelope with
// Retry-After, and other keys are unaffected.
func TestRateLimitPerKey(t *testing.T) {
	db := testenv.Databases(t)[0]
	clk := &testClock{t: time.Unix(1_700_000_000, 0)}
	e := newAccessEnv(t, db, accessConfig{require: true, limit: ratelimit.Limit{Rate: 20, Burst: 5}, now: clk.Now})
	m := e.meter()
	h := e.handler(m)
	limited, _ := e.newKey(t, "default limit", ratelimit.Limit{})
	own, _ := e.newKey(t, "own limit", ratelimit.Limit{Rate: 50, Burst: 10})
	other, _ := e.newKey(t, "unlimited", ratelimit.Limit{Rate: -1})

	const window = 10 * time.Second
	step := time.Second / 500 // 500 attempts per simulated second per key
	ok := map[string]int{}
	routes := keyedRoutes(t)
	rt := routes[0] // GET /api/v3/actions: cheap
	for elapsed := time.Duration(0); elapsed < window; elapsed += step {
		for i, key := range []string{limited, own, other} {
			if i == 2 && elapsed%(100*time.Millisecond) != 0 {
				continue // the unlimited key at 10/s is enough to show it is unaffected
			}
			rec := doRequest(h, rt.method, "/"+key+rt.path, "")
			switch rec.Code {
			case http.StatusOK:
				ok[key]++
			case http.StatusTooManyRequests:
				require.NotEqual(t, other, key)
				after, err := strconv.Atoi(rec.Header().Get("Retry-After"))
				require.NoError(t, err)
				require.GreaterOrEqual(t, after, 1)
			default:
				t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
			}
		}
		clk.Add(step)
	}
	within := func(want float64, got int) {
		t.Helper()
		require.InDelta(t, want, float64(got), want*0.1)
	}
	within(5+20*window.Seconds(), ok[limited])
	within(10+50*window.Seconds(), ok[own])
	require.Equal(t, int(window/(100*time.Millisecond)), ok[other])

	// Refusals use each route's envelope.
	for _, rt := range routes {
		var rec = doRequest(h, rt.method, "/"+limited+rt.path, rt.body)
		for rec.Code != http.StatusTooManyRequests {
			rec = doRequest(h, rt.method, "/"+limited+rt.path, rt.body)
		}
		require.NotEmpty(t, rec.Header().Get("Retry-After"))
		require.Contains(t, rec.Body.String(), "rate limit exceeded", rt.name)
		if rt.name == "graphql" {
			require.Contains(t, rec.Body.String(), `"code":"RATE_LIMITED"`)
		} else {
			require.Contains(t, rec.Body.String(), `"code":429`, rt.name)
		}
	}
	// Only accepted requests are units.
	require.NoError(t, m.Flush(t.Context()))
	require.Equal(t, int64(ok[other]), e.units(t, other))
}
