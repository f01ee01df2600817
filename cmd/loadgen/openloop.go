package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Open-loop load (scripts/perf-vs-pgbench.sh, RATES): requests sent at a
// fixed mean rate whatever the answers' pace, as `pgbench -R` sends its
// transactions, so the server and the database are compared at the same
// load rather than each at its own saturation. The arrivals are Poisson,
// as pgbench's are (a constant pace, as wrk2's or vegeta's, has no bursts
// and would flatter the server's tail against pgbench's), and each latency
// is counted from the request's scheduled time: a request the client could
// not send on time because it was behind is late by that much, not hidden.
// Only the client's own timer lateness is left out (openLoop).

// arrivals are the scheduled send times, from the start, of a Poisson
// stream of rate requests a second over d; the same seed gives the same
// schedule.
func arrivals(rate float64, d time.Duration, seed uint64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, 0x6f70656e))
	var out []time.Duration
	for t := 0.0; ; {
		t += r.ExpFloat64() / rate
		at := time.Duration(t * float64(time.Second))
		if at >= d {
			return out
		}
		out = append(out, at)
	}
}

// percentile is the q-quantile (0..1) of sorted latencies, by the nearest
// rank; 0 for none.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// openLoopResult is what one run measured.
type openLoopResult struct {
	Sent, Failed int // failed: a transport error or a status other than 200
	Elapsed      time.Duration
	P50, P99     time.Duration
}

// openLoop sends GET url on the schedule and waits for every answer.
// inFlight bounds the requests open at once (a server that stops
// answering cannot make the client open connections without end); a
// request waiting for a slot is late, and its latency says so.
func openLoop(ctx context.Context, url string, schedule []time.Duration, inFlight int) openLoopResult {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: inFlight, MaxConnsPerHost: inFlight, DisableCompression: true}}
	defer client.CloseIdleConnections()
	slots := make(chan struct{}, inFlight)
	lat := make([]time.Duration, len(schedule))
	var failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i, at := range schedule {
		due := start.Add(at)
		var late time.Duration // the client's own, not counted
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
			// Go's runtime sleeps in whole milliseconds of its poller, so a
			// sleep wakes up to a millisecond past its due time: at 250
			// requests a second that was most of a /healthz answer's
			// latency (0.84 ms median). A request sent late because the
			// client was behind (slots full, answers slow) still counts
			// from its due time.
			late = max(0, time.Since(due))
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if !get(ctx, client, url) {
				failed.Add(1)
			}
			lat[i] = time.Since(due) - late
		}()
	}
	wg.Wait()
	res := openLoopResult{Sent: len(schedule), Elapsed: time.Since(start), Failed: int(failed.Load())}
	slices.Sort(lat)
	res.P50, res.P99 = percentile(lat, 0.50), percentile(lat, 0.99)
	return res
}

// get reads one answer whole; false unless it is a 200.
func get(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK
}

// runOpenLoop prints "sent/s p50_ms p99_ms failed requests", the line the
// script reads.
func runOpenLoop(url string, rate float64, d time.Duration, seed uint64) error {
	if rate <= 0 || d <= 0 {
		return fmt.Errorf("-rate and -duration must be positive")
	}
	r := openLoop(context.Background(), url, arrivals(rate, d, seed), 1024)
	fmt.Printf("%.0f %.2f %.2f %d %d\n", float64(r.Sent)/r.Elapsed.Seconds(),
		float64(r.P50)/float64(time.Millisecond), float64(r.P99)/float64(time.Millisecond), r.Failed, r.Sent)
	return nil
}
