package server

import (
	"database/sql"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics sources outside this package; any may be nil. The database
// pools, the emulator pool and the fee cache are found through
// Options.Resolver, the API key cache through Options.Access, so only what
// those do not reach is listed here.
type MetricsSources struct {
	Units       func() int64                // request units counted by this process
	RedisErrors func() int64                // failed metering calls to Redis
	Cache       func() (hits, misses int64) // fee cache statistics; nil: the estimator's cache
	Gauges      func() []Gauge              // e.g. the follower's cursor and lag
}

// Gauge is one named value sampled when /metrics is read.
type Gauge struct {
	Name, Help string
	Value      float64
}

// latencyBuckets are upper bounds in seconds, from a cached read to the
// request timeout.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// metrics is this handler's Prometheus registry: its own, not the global
// default, so two handlers in one process (tests) never share counts.
type metrics struct {
	reg        *prometheus.Registry
	handler    http.Handler
	requests   *prometheus.CounterVec
	latencyVec *prometheus.HistogramVec
	routes     *router               // names a request by its route's pattern (routes.go); set once by setRoutes
	latency    []prometheus.Observer // by the router's label index, bound once: no label lookup per request
	limited    prometheus.Counter

	// responses caches the counter of each route and status seen, so a
	// request costs a read-locked map lookup instead of hashing labels and
	// formatting the status.
	mu        sync.RWMutex
	responses map[uint32]prometheus.Counter
}

func newMetrics(src MetricsSources) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tonql_http_requests_total",
			Help: "Requests answered, by route and HTTP status."}, []string{"route", "status"}),
		limited: prometheus.NewCounter(prometheus.CounterOpts{Name: "tonql_rate_limited_total",
			Help: "Requests refused with 429 by a key's rate limit."}),
		responses: map[uint32]prometheus.Counter{},
	}
	m.latencyVec = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tonql_http_request_duration_seconds",
		Help: "Time to answer a request, by route.", Buckets: latencyBuckets}, []string{"route"})
	m.setRoutes(newRouter())
	reg.MustRegister(m.requests, m.latencyVec, m.limited,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if src.Units != nil {
		reg.MustRegister(counterFunc("tonql_request_units_total", "Request units counted by this process.", src.Units))
	}
	if src.RedisErrors != nil {
		reg.MustRegister(counterFunc("tonql_metering_redis_errors_total",
			"Metering pushes to or moves from Redis that failed (retried; a failed push goes to the store instead).", src.RedisErrors))
	}
	if src.Cache != nil {
		registerHitsMisses(reg, "tonql_cache", "Fee cache", src.Cache)
	}
	if src.Gauges != nil {
		reg.MustRegister(gaugeList(src.Gauges))
	}
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return m
}

// setRoutes labels requests by rt's patterns; called once, before the
// first request.
func (m *metrics) setRoutes(rt *router) {
	m.routes = rt
	m.latency = make([]prometheus.Observer, len(rt.labels))
	for i, l := range rt.labels {
		m.latency[i] = m.latencyVec.WithLabelValues(l) // every route shows, with zeros, from the start
	}
}

func (m *metrics) observe(path string, status int, took time.Duration) {
	ri := m.routes.route(path)
	m.latency[ri].Observe(took.Seconds())
	if status == http.StatusTooManyRequests {
		m.limited.Inc()
	}
	k := uint32(ri)<<16 | uint32(status)&0xffff
	m.mu.RLock()
	c, ok := m.responses[k]
	m.mu.RUnlock()
	if !ok {
		c = m.requests.WithLabelValues(m.routes.labels[ri], strconv.Itoa(status))
		m.mu.Lock()
		m.responses[k] = c
		m.mu.Unlock()
	}
	c.Inc()
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }

// addDBs exposes each pool's connection statistics (go_sql_*, by db_name).
func (m *metrics) addDBs(dbs map[string]*sql.DB) {
	for name, db := range dbs {
		m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
	}
}

func counterFunc(name, help string, f func() int64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
}

func gaugeFunc(name, help string, f func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
}

// registerHitsMisses adds prefix_hits_total and prefix_misses_total, read
// from one call of counts per family.
func registerHitsMisses(reg *prometheus.Registry, prefix, what string, counts func() (hits, misses int64)) {
	reg.MustRegister(
		counterFunc(prefix+"_hits_total", what+" hits.", func() int64 { h, _ := counts(); return h }),
		counterFunc(prefix+"_misses_total", what+" misses.", func() int64 { _, m := counts(); return m }))
}

// gaugeList is an unchecked collector (it describes nothing up front): the
// names come from MetricsSources.Gauges and are known only when sampled.
// A name that clashes with a registered metric costs that sample, not the
// scrape (ContinueOnError).
type gaugeList func() []Gauge

func (gaugeList) Describe(chan<- *prometheus.Desc) {}

func (g gaugeList) Collect(ch chan<- prometheus.Metric) {
	for _, v := range g() {
		m, err := prometheus.NewConstMetric(prometheus.NewDesc(v.Name, v.Help, nil, nil), prometheus.GaugeValue, v.Value)
		if err != nil {
			m = prometheus.NewInvalidMetric(prometheus.NewDesc(v.Name, v.Help, nil, nil), err)
		}
		ch <- m
	}
}
