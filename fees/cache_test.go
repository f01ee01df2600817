package fees

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// cachedEstimator is the replay estimator with a cache. The local copy of
// shared-cache entries is off: these tests watch what reaches the cache.
func (r *replay) cachedEstimator(c cache.Cache, now *time.Time) *Estimator {
	return New(r.source, c, Options{Now: func() time.Time { return *now }, LocalCacheTTL: -1})
}

func checkHitMiss(t *testing.T, r *replay, c cache.Cache) {
	t.Helper()
	now := time.Unix(int64(r.genUtime), 0)
	est := r.cachedEstimator(c, &now)
	x := r.ext[3] // a jetton transfer: its trace has destination fees
	first, err := est.Estimate(context.Background(), x.request(t))
	if err != nil {
		t.Fatal(err)
	}
	second, err := est.Estimate(context.Background(), x.request(t))
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached || !second.Cached {
		t.Fatalf("cached flags %v then %v, want miss then hit", first.Cached, second.Cached)
	}
	if asJSON(t, first) != asJSON(t, second) || second.ConfigSource != first.ConfigSource {
		t.Fatalf("hit %s differs from miss %s", asJSON(t, second), asJSON(t, first))
	}
	if len(second.DestinationFees) == 0 {
		t.Fatal("trace lost in the cache")
	}
	// a new time bucket is a new key: storage fees have moved on
	now = now.Add(time.Minute)
	third, err := est.Estimate(context.Background(), x.request(t))
	if err != nil {
		t.Fatal(err)
	}
	if third.Cached {
		t.Fatal("answer of another time bucket served")
	}
}

func TestCacheHitMissMemory(t *testing.T) {
	checkHitMiss(t, loadReplay(t), cache.NewMemory(100))
}

func TestCacheHitMissRedis(t *testing.T) {
	addr := testenv.RedisAddr(t)
	rc := cache.NewRedisAddr(addr, cache.RedisOptions{Timeout: testRedisTimeout, Prefix: "tonql-test:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"})
	defer rc.Close()
	checkHitMiss(t, loadReplay(t), rc)
	if hits, _, errs := rc.Stats(); hits == 0 || errs != 0 {
		t.Fatalf("redis hits %d errors %d", hits, errs)
	}
}

// TestCacheInvalidatedByDestinationChange: a cached answer depends on the
// states its trace touched; when one of them gets a new transaction the
// answer is recomputed.
func TestCacheInvalidatedByDestinationChange(t *testing.T) {
	r := loadReplay(t)
	// a private copy of the source: this test changes a state
	cfg, _ := r.source.Config(context.Background())
	src := NewMemorySource(cfg)
	r.source.mu.RLock()
	for _, st := range r.source.accounts {
		src.Put(st)
	}
	r.source.mu.RUnlock()
	now := time.Unix(int64(r.genUtime), 0)
	est := New(src, cache.NewMemory(100), Options{Now: func() time.Time { return now }})
	x := r.ext[3]
	if _, err := est.Estimate(context.Background(), x.request(t)); err != nil {
		t.Fatal(err)
	}
	key := est.cacheKey(x.request(t), mustPrepared(t, est), mustAccount(t, src, chain.RawAddress(x.Account)), ChainTime{Unix: uint32(now.Unix())}, kindEstimate)
	raw, ok := est.cache.Get(context.Background(), key)
	if !ok {
		t.Fatal("answer not cached")
	}
	res, _ := est.Estimate(context.Background(), x.request(t))
	if !res.Cached {
		t.Fatal("second estimate missed")
	}
	// bump the first destination's last transaction
	var c cached
	if err := json.Unmarshal(raw, &c); err != nil || len(c.Deps) == 0 {
		t.Fatalf("deps: %v %d", err, len(c.Deps))
	}
	st := mustAccount(t, src, c.Deps[0].Addr)
	bumped := *st
	bumped.LastTxLt++
	src.Put(&bumped)
	res, err := est.Estimate(context.Background(), x.request(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached {
		t.Fatal("served an answer computed on a destination state that has changed")
	}
}

func mustPrepared(t *testing.T, e *Estimator) *preparedConfig {
	p, err := e.config(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustAccount(t *testing.T, s StateSource, raw string) *chain.AccountState {
	st, err := s.Account(context.Background(), raw)
	if err != nil || st == nil {
		t.Fatalf("account %s: %v", raw, err)
	}
	return st
}

// TestRedisStoppedMidRunKeepsEstimating: estimates succeed, with the same
// answers, before, while and after Redis dies.
func TestRedisStoppedMidRunKeepsEstimating(t *testing.T) {
	r := loadReplay(t)
	s := cachetest.StartRedis(t)
	rc := cache.NewRedisAddr(s.Addr, cache.RedisOptions{Timeout: testRedisTimeout})
	defer rc.Close()
	now := time.Unix(int64(r.genUtime), 0)
	est := r.cachedEstimator(rc, &now)
	want := map[int]string{}
	for round := 0; round < 4; round++ {
		if round == 2 {
			s.Stop()
		}
		for i, x := range r.ext {
			res, err := est.Estimate(context.Background(), x.request(t))
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if round == 0 {
				want[i] = asJSON(t, res)
			} else if got := asJSON(t, res); got != want[i] {
				t.Fatalf("round %d message %d: %s, before %s", round, i, got, want[i])
			}
			if round == 1 && !res.Cached {
				t.Fatalf("round 1 message %d: not served from Redis", i)
			}
		}
	}
	if _, _, errs := rc.Stats(); errs == 0 {
		t.Fatal("Redis failures were not noticed")
	}
}

// TestRedisClosedPortFromStart: a configured but absent Redis never fails a
// request.
func TestRedisClosedPortFromStart(t *testing.T) {
	r := loadReplay(t)
	rc := cache.NewRedisAddr("127.0.0.1:"+strconv.Itoa(cachetest.FreePort(t)), cache.RedisOptions{})
	defer rc.Close()
	now := time.Unix(int64(r.genUtime), 0)
	est := r.cachedEstimator(rc, &now)
	for _, x := range r.ext {
		res, err := est.Estimate(context.Background(), x.request(t))
		if err != nil || res.SourceFees.GasFee != x.Charged.GasFee {
			t.Fatalf("%s: %v", short(x.Account), err)
		}
	}
}

// TestLocalCopyOfSharedCache: with Redis, a process answers a repeated
// estimate from its own copy, and a second process (another Estimator on
// the same Redis) gets the first one's answer from Redis once, then from
// its own copy.
func TestLocalCopyOfSharedCache(t *testing.T) {
	r := loadReplay(t)
	prefix := "tonql-test:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	at := time.Unix(int64(r.genUtime), 0)
	opts := Options{Now: func() time.Time { return at }, LocalCacheTTL: time.Hour}
	req := r.ext[3].request(t)
	for i, want := range []struct{ cached bool }{{false}, {true}} {
		rc := cache.NewRedisAddr(testenv.RedisAddr(t), cache.RedisOptions{Timeout: testRedisTimeout, Prefix: prefix})
		defer rc.Close()
		est := New(r.source, rc, opts)
		for n := 0; n < 3; n++ {
			res, err := est.Estimate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Cached != (want.cached || n > 0) {
				t.Fatalf("process %d estimate %d: cached=%v", i, n, res.Cached)
			}
		}
		hits, _, _ := rc.Stats()
		if want.cached != (hits == 1) || hits > 1 {
			t.Fatalf("process %d: %d Redis hits", i, hits)
		}
	}
}

// testRedisTimeout replaces the 50 ms production timeout in tests that
// assert cache hits: under -race on a loaded 2-core CI machine a healthy
// Redis call can take longer, fail open, and turn a hit into a miss. The
// outage tests still see failures at once (connection refused).
const testRedisTimeout = 2 * time.Second
