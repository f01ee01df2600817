package server

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tonql/tonql/webhooks"
)

// webhookBuckets are upper bounds in seconds for one delivery attempt:
// a receiver on the same network answers in milliseconds, WEBHOOK_TIMEOUT
// (10 s by default) ends the slowest.
var webhookBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// addWebhooks shows the webhook service's work: attempts by outcome and
// their latency (this process's), and the outbox and the disabled hooks
// (the store's, for every process), read when /metrics is scraped.
func (m *metrics) addWebhooks(svc *webhooks.Service) {
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tonql_webhook_deliveries_total",
		Help: "Webhook delivery attempts of this process, by outcome (delivered, failed, expired, test)."}, []string{"outcome"})
	latency := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tonql_webhook_delivery_duration_seconds",
		Help: "Time a receiver took to answer one delivery attempt (or to fail it).", Buckets: webhookBuckets})
	for _, o := range []string{"delivered", "failed", "expired", "test"} {
		attempts.WithLabelValues(o) // every outcome shows, with zeros, from the start
	}
	backlog := func(pick func(waiting, disabled int64) int64) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			w, d, err := svc.Backlog(ctx)
			if err != nil {
				return -1 // the database did not answer: a value no count has
			}
			return float64(pick(w, d))
		}
	}
	m.reg.MustRegister(attempts, latency,
		gaugeFunc("tonql_webhook_queue_depth", "Webhook events queued in the store and not yet taken by their receivers (every process's); -1 when the database did not answer.",
			backlog(func(w, _ int64) int64 { return w })),
		gaugeFunc("tonql_webhooks_disabled", "Webhooks disabled (failing for WEBHOOK_DISABLE_AFTER, or their key revoked); -1 when the database did not answer.",
			backlog(func(_, d int64) int64 { return d })))
	svc.OnAttempt(func(outcome string, took time.Duration) {
		attempts.WithLabelValues(outcome).Inc()
		latency.Observe(took.Seconds())
	})
}
