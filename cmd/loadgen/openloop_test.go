package main

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The schedule is a Poisson stream: about rate*d arrivals, gaps whose
// mean is 1/rate and whose spread is as wide as their mean (an even pace
// would have none), in order, all inside d, the same for the same seed.
func TestArrivalsArePoisson(t *testing.T) {
	const rate = 1000.0
	d := 20 * time.Second
	s := arrivals(rate, d, 7)
	require.InDelta(t, rate*d.Seconds(), float64(len(s)), 3*141.0, "count within three standard deviations (sqrt of 20,000)")
	require.True(t, slices.IsSorted(s))
	require.Less(t, s[len(s)-1], d)
	var sum, sq float64
	prev := time.Duration(0)
	for _, at := range s {
		g := (at - prev).Seconds()
		sum, sq = sum+g, sq+g*g
		prev = at
	}
	n := float64(len(s))
	mean := sum / n
	sd := sq/n - mean*mean
	require.InDelta(t, 1/rate, mean, 0.05/rate)
	require.InDelta(t, 1/rate, math.Sqrt(sd), 0.1/rate, "an exponential gap's standard deviation equals its mean")
	require.Equal(t, s, arrivals(rate, d, 7))
	require.NotEqual(t, s[:10], arrivals(rate, d, 8)[:10])
}

func TestPercentileByNearestRank(t *testing.T) {
	var l []time.Duration
	for i := 1; i <= 100; i++ {
		l = append(l, time.Duration(i))
	}
	require.Equal(t, time.Duration(50), percentile(l, 0.50))
	require.Equal(t, time.Duration(99), percentile(l, 0.99))
	require.Equal(t, time.Duration(1), percentile(l[:1], 0.99))
	require.Zero(t, percentile(nil, 0.5))
}

// Every scheduled request is sent and answered once; answers other than
// 200 are counted as failed, and a latency is never shorter than the
// server's own delay.
func TestOpenLoopSendsTheScheduleAndCountsFailures(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(2 * time.Millisecond)
		if n.Add(1)%4 == 0 {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	s := arrivals(400, 500*time.Millisecond, 1)
	r := openLoop(context.Background(), srv.URL, s, 8)
	require.Equal(t, len(s), r.Sent)
	require.EqualValues(t, len(s), n.Load())
	require.Equal(t, len(s)/4, r.Failed)
	require.GreaterOrEqual(t, r.P50, 2*time.Millisecond)
	require.GreaterOrEqual(t, r.P99, r.P50)
}
