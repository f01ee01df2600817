package server

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Metrics sources outside this package; any may be nil.
type MetricsSources struct {
	Units       func() int64                // request units counted by this process
	RedisErrors func() int64                // failed metering calls to Redis
	Cache       func() (hits, misses int64) // fee cache statistics
	Gauges      func() []Gauge              // e.g. the follower's cursor and lag
}

// Gauge is one named value sampled when /metrics is read.
type Gauge struct {
	Name, Help string
	Value      float64
}

// routeLabels bound the label set: any other path is "other".
var routeLabels = [...]string{"/graphql", "/api/v3/actions", "/api/v3/actions/stream", "/api/v2/estimateFee", "/api/v2/jsonRPC", "/",
	"/healthz", "/readyz", "/metrics", "other"}

func routeIndex(path string) int {
	for i, r := range routeLabels[:len(routeLabels)-1] {
		if r == path {
			return i
		}
	}
	return len(routeLabels) - 1
}

// latencyBuckets are upper bounds in seconds, from a cached read to the
// request timeout.
var latencyBuckets = [...]float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

type histogram struct {
	counts [len(latencyBuckets) + 1]atomic.Int64 // last = above every bound
	sumNs  atomic.Int64
}

type routeStatus struct {
	route  int
	status int
}

// metrics is the Prometheus text exposition of this handler, written by
// hand: a few counters and one histogram do not justify a dependency.
type metrics struct {
	src       MetricsSources
	latency   [len(routeLabels)]histogram
	limited   atomic.Int64
	mu        sync.Mutex
	responses map[routeStatus]int64
}

func newMetrics(src MetricsSources) *metrics {
	return &metrics{src: src, responses: map[routeStatus]int64{}}
}

func (m *metrics) observe(path string, status int, took time.Duration) {
	ri := routeIndex(path)
	h := &m.latency[ri]
	b := len(latencyBuckets)
	for i, le := range latencyBuckets {
		if took.Seconds() <= le {
			b = i
			break
		}
	}
	h.counts[b].Add(1)
	h.sumNs.Add(int64(took))
	if status == http.StatusTooManyRequests {
		m.limited.Add(1)
	}
	m.mu.Lock()
	m.responses[routeStatus{ri, status}]++
	m.mu.Unlock()
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.write(w)
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	keys := make([]routeStatus, 0, len(m.responses))
	for k := range m.responses {
		keys = append(keys, k)
	}
	counts := make(map[routeStatus]int64, len(m.responses))
	for k, v := range m.responses {
		counts[k] = v
	}
	m.mu.Unlock()
	slices.SortFunc(keys, func(a, b routeStatus) int {
		if a.route != b.route {
			return a.route - b.route
		}
		return a.status - b.status
	})

	header(w, "tonql_http_requests_total", "counter", "Requests answered, by route and HTTP status.")
	for _, k := range keys {
		fmt.Fprintf(w, "tonql_http_requests_total{route=%q,status=\"%d\"} %d\n", routeLabels[k.route], k.status, counts[k])
	}
	header(w, "tonql_http_request_duration_seconds", "histogram", "Time to answer a request, by route.")
	for ri := range m.latency {
		h := &m.latency[ri]
		var cum int64
		for i := range h.counts {
			cum += h.counts[i].Load()
			le := "+Inf"
			if i < len(latencyBuckets) {
				le = strconv.FormatFloat(latencyBuckets[i], 'g', -1, 64)
			}
			fmt.Fprintf(w, "tonql_http_request_duration_seconds_bucket{route=%q,le=%q} %d\n", routeLabels[ri], le, cum)
		}
		fmt.Fprintf(w, "tonql_http_request_duration_seconds_sum{route=%q} %g\n", routeLabels[ri], time.Duration(h.sumNs.Load()).Seconds())
		fmt.Fprintf(w, "tonql_http_request_duration_seconds_count{route=%q} %d\n", routeLabels[ri], cum)
	}
	counter(w, "tonql_rate_limited_total", "Requests refused with 429 by a key's rate limit.", m.limited.Load())
	if m.src.Units != nil {
		counter(w, "tonql_request_units_total", "Request units counted by this process.", m.src.Units())
	}
	if m.src.RedisErrors != nil {
		counter(w, "tonql_metering_redis_errors_total", "Metering pushes to or moves from Redis that failed (retried; a failed push goes to the store instead).", m.src.RedisErrors())
	}
	if m.src.Cache != nil {
		hits, misses := m.src.Cache()
		counter(w, "tonql_cache_hits_total", "Fee cache hits.", hits)
		counter(w, "tonql_cache_misses_total", "Fee cache misses.", misses)
	}
	if m.src.Gauges != nil {
		for _, g := range m.src.Gauges() {
			header(w, g.Name, "gauge", g.Help)
			fmt.Fprintf(w, "%s %g\n", g.Name, g.Value)
		}
	}
}

func header(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func counter(w io.Writer, name, help string, v int64) {
	header(w, name, "counter", help)
	fmt.Fprintf(w, "%s %d\n", name, v)
}
