package ratelimit

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/internal/testenv"
)

// dial connects to Redis the way the server does (timeouts via context).
func dial(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, DisableIdentity: true})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// testTimeout is generous so a loaded test machine (-race) never trips
// the fallback in tests that count what Redis admits.
const testTimeout = 5 * time.Second

// uniquePrefix keeps each test's buckets apart on the shared Redis.
func uniquePrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "tonql-test-" + hex.EncodeToString(b[:]) + ":"
}

// Two servers on one Redis admit a key's rate once in total, not once
// each, over a simulated window; a second key keeps its own bucket.
func TestSharedLimitHoldsAcrossServers(t *testing.T) {
	rdb := dial(t, testenv.RedisAddr(t))
	for _, lim := range []Limit{{Rate: 50, Burst: 10}, {Rate: 1000, Burst: 50}, {Rate: 2, Burst: 1}} {
		clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
		prefix := uniquePrefix()
		servers := []*Limiter{
			NewShared(SharedOptions{Redis: rdb, Prefix: prefix, Now: clk.Now, Timeout: testTimeout}),
			NewShared(SharedOptions{Redis: rdb, Prefix: prefix, Now: clk.Now, Timeout: testTimeout}),
		}
		const window = 20 * time.Second
		step := time.Second / 2000 // each server offers 2,000 requests per second
		allowed := map[string]int{}
		for elapsed := time.Duration(0); elapsed < window; elapsed += step {
			for _, s := range servers {
				for _, key := range []string{"a", "b"} {
					if key == "b" && elapsed%(100*time.Millisecond) != 0 {
						continue // 10/s per server: under b's limit
					}
					if ok, _ := s.Allow(key, lim); ok {
						allowed[key]++
					}
				}
			}
			clk.Add(step)
		}
		want := float64(lim.Burst) + lim.Rate*window.Seconds()
		t.Logf("limit %+v: %d admitted by two servers, %.0f expected", lim, allowed["a"], want)
		require.InDelta(t, want, float64(allowed["a"]), want*0.1, "limit %+v", lim)
		if lim.Rate >= 20 {
			require.Equal(t, 2*int(window/(100*time.Millisecond)), allowed["b"], "limit %+v", lim)
		}
	}
}

// A refusal says how long until the shared bucket has a token, and a
// server that is refused does not ask Redis again before then.
func TestSharedRetryAfter(t *testing.T) {
	rdb := dial(t, testenv.RedisAddr(t))
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	prefix := uniquePrefix()
	a := NewShared(SharedOptions{Redis: rdb, Prefix: prefix, Now: clk.Now, Timeout: testTimeout})
	b := NewShared(SharedOptions{Redis: rdb, Prefix: prefix, Now: clk.Now, Timeout: testTimeout})
	lim := Limit{Rate: 2, Burst: 2}
	for _, s := range []*Limiter{a, b} {
		ok, _ := s.Allow("k", lim)
		require.True(t, ok)
	}
	ok, wait := a.Allow("k", lim)
	require.False(t, ok)
	require.Equal(t, 500*time.Millisecond, wait)
	clk.Add(wait)
	ok, _ = b.Allow("k", lim)
	require.True(t, ok)
	ok, _ = a.Allow("k", lim) // b took the one token
	require.False(t, ok)
}

// With Redis gone, requests are decided by the local bucket at once, the
// outage is logged once, not once per request.
func TestSharedFallsBackWhenRedisStops(t *testing.T) {
	srv := cachetest.StartRedis(t)
	rdb := dial(t, srv.Addr)
	var logs testenv.SyncBuffer
	l := NewShared(SharedOptions{Redis: rdb, Prefix: uniquePrefix(), RetryEvery: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	lim := Limit{Rate: 0.001, Burst: 3} // no refill during the test
	for range 3 {
		ok, _ := l.Allow("k", lim)
		require.True(t, ok)
	}
	ok, _ := l.Allow("k", lim)
	require.False(t, ok)

	srv.Stop()
	// A fresh key gets its burst from the local bucket, then refusals; an
	// unlimited key is not affected at all.
	allowed := 0
	for range 100 {
		if ok, _ := l.Allow("fresh", lim); ok {
			allowed++
		}
		ok, _ := l.Allow("free", Limit{Rate: -1})
		require.True(t, ok)
	}
	require.Equal(t, 3, allowed)
	time.Sleep(120 * time.Millisecond) // past RetryEvery: Redis is tried again, still down
	ok, wait := l.Allow("fresh", lim)
	require.False(t, ok)
	require.Positive(t, wait)
	require.Equal(t, 1, strings.Count(logs.String(), "Redis unavailable"), logs.String())
}
