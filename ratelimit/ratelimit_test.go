package ratelimit

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock advances only when told, so a rate is a count over simulated
// time, with no sleeping and no wall-clock assertion.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestRateHoldsOverWindow(t *testing.T) {
	for _, lim := range []Limit{{Rate: 10, Burst: 20}, {Rate: 100, Burst: 1}, {Rate: 0.5, Burst: 3}, {Rate: 1000, Burst: 50}} {
		clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
		l := New(clk.Now)
		// Offer far more than the limit: 5,000 attempts per simulated
		// second for 20 seconds.
		const window = 20 * time.Second
		step := time.Second / 5000
		allowed := 0
		for elapsed := time.Duration(0); elapsed < window; elapsed += step {
			if ok, _ := l.Allow("k", lim); ok {
				allowed++
			}
			clk.Add(step)
		}
		want := float64(lim.Burst) + lim.Rate*window.Seconds()
		require.InDelta(t, want, float64(allowed), want*0.1, "limit %+v", lim)
	}
}

func TestKeysAreIndependentAndRetryAfter(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := New(clk.Now)
	lim := Limit{Rate: 2, Burst: 2}
	for range 2 {
		ok, _ := l.Allow("a", lim)
		require.True(t, ok)
	}
	ok, wait := l.Allow("a", lim)
	require.False(t, ok)
	require.Equal(t, 500*time.Millisecond, wait)
	// Another key has its own full bucket.
	ok, _ = l.Allow("b", lim)
	require.True(t, ok)
	clk.Add(wait)
	ok, _ = l.Allow("a", lim)
	require.True(t, ok)
	// Unlimited keys are never refused.
	for range 1000 {
		ok, _ := l.Allow("c", Limit{Rate: -1})
		require.True(t, ok)
	}
}

func TestConcurrentAllowNeverOverspends(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := New(clk.Now)
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 1000 {
				if ok, _ := l.Allow("k", Limit{Rate: 5, Burst: 100}); ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, 100, allowed) // the clock never moved: exactly the burst
}
