package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// emulationBuckets are upper bounds in seconds for one emulation: a simple
// transfer takes about a millisecond, a long trace a few seconds.
var emulationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// addSources registers what the handler's own parts show: the database
// pools and the fee estimator (emulator pool, emulation time, fee cache)
// of the resolver, the GraphQL query cache and the API key cache.
func (m *metrics) addSources(o Options, docs *docCache) {
	reg := m.reg
	if st := o.Resolver.Store; st != nil {
		m.addDBs(st.Pools())
		reg.MustRegister(newReplicaCollector(st))
	}
	if est := o.Resolver.Fees; est != nil {
		reg.MustRegister(
			gaugeFunc("tonql_emulator_pool_size", "Emulators that may run at once (one per core: GOMAXPROCS).",
				func() float64 { return float64(est.PoolStats().Size) }),
			gaugeFunc("tonql_emulator_pool_busy", "Emulators leased to an estimate now.",
				func() float64 { return float64(est.PoolStats().Busy) }),
			gaugeFunc("tonql_emulator_pool_idle", "Emulators made and kept for reuse.",
				func() float64 { return float64(est.PoolStats().Idle) }),
			gaugeFunc("tonql_emulator_pool_queue", "Estimates waiting for an emulator.",
				func() float64 { return float64(est.PoolStats().Waiting) }))
		emu := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tonql_emulation_duration_seconds",
			Help:    "Time one estimate or preview held its emulator (the message and its trace, queueing excluded).",
			Buckets: emulationBuckets})
		reg.MustRegister(emu)
		est.OnEmulation(func(d time.Duration) { emu.Observe(d.Seconds()) })
		if _, _, ok := est.CacheCounts(); ok && o.Metrics.Cache == nil {
			registerHitsMisses(reg, "tonql_cache", "Fee cache", func() (int64, int64) {
				h, mi, _ := est.CacheCounts()
				return h, mi
			})
		}
	}
	if o.Resolver.Webhooks != nil {
		m.addWebhooks(o.Resolver.Webhooks)
	}
	registerHitsMisses(reg, "tonql_graphql_cache", "GraphQL query cache (parsed and validated documents)", docs.counts)
	if o.Access != nil && o.Access.Keys != nil {
		registerHitsMisses(reg, "tonql_apikey_cache", "API key cache", o.Access.Keys.Counts)
	}
}
