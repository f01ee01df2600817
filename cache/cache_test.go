package cache

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/internal/testenv"
)

func TestMemoryLRUAndTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	m := NewMemoryClock(2, func() time.Time { return now })
	ctx := context.Background()
	m.Set(ctx, "a", []byte("1"), time.Minute)
	m.Set(ctx, "b", []byte("2"), time.Minute)
	if _, ok := m.Get(ctx, "a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	m.Set(ctx, "c", []byte("3"), time.Minute) // evicts b
	if _, ok := m.Get(ctx, "b"); ok {
		t.Fatal("least recently used entry survived")
	}
	v, ok := m.Get(ctx, "a")
	if !ok || string(v) != "1" {
		t.Fatalf("a = %q %v", v, ok)
	}
	v[0] = 'x' // callers own what they get
	if v, _ := m.Get(ctx, "a"); string(v) != "1" {
		t.Fatal("cached value aliased by a caller")
	}
	now = now.Add(time.Minute)
	if _, ok := m.Get(ctx, "c"); ok {
		t.Fatal("expired entry served")
	}
}

// exercise is the same contract for every backend.
func exercise(t *testing.T, c Cache, prefix string) {
	ctx := context.Background()
	if _, ok := c.Get(ctx, prefix+"absent"); ok {
		t.Fatal("hit on an absent key")
	}
	c.Set(ctx, prefix+"k", []byte("v"), time.Minute)
	if v, ok := c.Get(ctx, prefix+"k"); !ok || string(v) != "v" {
		t.Fatalf("got %q %v", v, ok)
	}
}

func TestMemoryContract(t *testing.T) { exercise(t, NewMemory(10), "") }

func TestRedisContract(t *testing.T) {
	addr := testenv.RedisAddr(t)
	r := NewRedisAddr(addr, RedisOptions{Timeout: testRedisTimeout, Prefix: "tonql-test:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"})
	defer r.Close()
	exercise(t, r, "")
	hits, misses, errs := r.Stats()
	if hits != 1 || misses != 1 || errs != 0 {
		t.Fatalf("hits %d misses %d errors %d", hits, misses, errs)
	}
}

// TestRedisDownFailsOpen: a closed port is a miss, never an error, and after
// the first failure Redis is not even tried until the cooldown passes.
func TestRedisDownFailsOpen(t *testing.T) {
	now := time.Unix(1000, 0)
	addr := fmt.Sprintf("127.0.0.1:%d", cachetest.FreePort(t))
	r := NewRedisAddr(addr, RedisOptions{Timeout: testRedisTimeout, Now: func() time.Time { return now }})
	defer r.Close()
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		r.Set(ctx, "k", []byte("v"), time.Minute)
		if _, ok := r.Get(ctx, "k"); ok {
			t.Fatal("hit from a server that is not there")
		}
	}
	if _, _, errs := r.Stats(); errs != 1 {
		t.Fatalf("%d backend calls failed; the breaker should have stopped after 1", errs)
	}
	now = now.Add(2 * time.Second)
	r.Get(ctx, "k")
	if _, _, errs := r.Stats(); errs != 2 {
		t.Fatalf("after the cooldown Redis should be retried once, errors %d", errs)
	}
}

// TestRedisStoppedMidRun: entries are served while the server lives; after
// it dies every call is a quick miss.
func TestRedisStoppedMidRun(t *testing.T) {
	s := cachetest.StartRedis(t)
	r := NewRedisAddr(s.Addr, RedisOptions{Timeout: testRedisTimeout})
	defer r.Close()
	exercise(t, r, "")
	s.Stop()
	for i := 0; i < 10; i++ {
		if _, ok := r.Get(context.Background(), "k"); ok {
			t.Fatal("hit after the server died")
		}
	}
}

// testRedisTimeout replaces the 50 ms production timeout in tests that
// assert cache hits: under -race on a loaded 2-core CI machine a healthy
// Redis call can take longer, fail open, and turn a hit into a miss. The
// outage tests still see failures at once (connection refused).
const testRedisTimeout = 2 * time.Second
