package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkObserve measures what the log line and metrics middleware cost a
// request (docs/PERFORMANCE.md, "Metrics middleware"): "record" is the
// metrics update alone, "middleware" is observe around a handler that only
// sets a status (the JSON log line written to io.Discard), and "scrape"
// is one GET /metrics after traffic on every route. Each runs one at a time
// and from every CPU.
func BenchmarkObserve(b *testing.B) {
	paths := []string{"/graphql", "/api/v3/actions", "/api/v3/actions/stream", "/api/v2/estimateFee", "/api/v2/jsonRPC", "/",
		"/healthz", "/readyz", "/metrics", "/no/such/route"}
	routes := newRouter()
	for _, p := range paths[:len(paths)-1] {
		routes.handle(p, http.NotFoundHandler())
	}
	statuses := []int{200, 200, 200, 404, 429}

	b.Run("record", func(b *testing.B) {
		m := newMetrics(MetricsSources{})
		m.setRoutes(routes)
		b.Run("serial", func(b *testing.B) {
			i := 0
			for b.Loop() {
				m.observe(paths[i%len(paths)], statuses[i%len(statuses)], time.Duration(i%5000)*time.Microsecond)
				i++
			}
		})
		b.Run("parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					m.observe(paths[i%len(paths)], statuses[i%len(statuses)], time.Duration(i%5000)*time.Microsecond)
					i++
				}
			})
		})
	})

	b.Run("middleware", func(b *testing.B) {
		m := newMetrics(MetricsSources{})
		m.setRoutes(routes)
		log := slog.New(slog.NewJSONHandler(io.Discard, nil))
		h := observe(log, AccessLog{}, m, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}))
		req := httptest.NewRequest(http.MethodGet, "/api/v3/actions", nil)
		b.Run("serial", func(b *testing.B) {
			for b.Loop() {
				h.ServeHTTP(discardWriter{}, req)
			}
		})
		b.Run("parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					h.ServeHTTP(discardWriter{}, req)
				}
			})
		})
	})

	b.Run("scrape", func(b *testing.B) {
		m := newMetrics(MetricsSources{})
		m.setRoutes(routes)
		for i, p := range paths {
			for _, s := range statuses {
				m.observe(p, s, time.Duration(i)*time.Millisecond)
			}
		}
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		for b.Loop() {
			m.ServeHTTP(discardWriter{}, req)
		}
	})
}

// discardWriter is a ResponseWriter that keeps nothing, so the benchmark
// times the middleware and not a recorder's buffer.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}
