package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tonql/tonql/store"
)

// replicaCollector shows each read replica's replay lag and whether reads
// go to it, as last seen by the store's health check (no query per
// scrape). Its label set is the configured replicas: bounded.
type replicaCollector struct {
	st           *store.Store
	lag, healthy *prometheus.Desc
}

func newReplicaCollector(st *store.Store) *replicaCollector {
	return &replicaCollector{st: st,
		lag: prometheus.NewDesc("tonql_replica_lag_seconds",
			"Replay lag of a read replica at its last health check (DATABASE_REPLICAS).", []string{"replica"}, nil),
		healthy: prometheus.NewDesc("tonql_replica_healthy",
			"1 when reads go to the replica, 0 when it is skipped (down, not in recovery, or past REPLICA_MAX_LAG).", []string{"replica"}, nil),
	}
}

func (c *replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lag
	ch <- c.healthy
}

func (c *replicaCollector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c.st.Replicas() {
		h := 0.0
		if r.Healthy {
			h = 1
		}
		ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, r.Lag.Seconds(), r.Name)
		ch <- prometheus.MustNewConstMetric(c.healthy, prometheus.GaugeValue, h, r.Name)
	}
}
