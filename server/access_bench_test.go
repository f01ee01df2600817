package server_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
)

// BenchmarkAccess measures what personal endpoints add to a request: the
// same cheap answer (405 from estimateFee, no handler work) bare and under a
// key (path split, cached key lookup, token bucket, unit count), with the
// meter's owner goroutine pushing to Redis or flushing to the store in the
// background. The difference between "bare" and "key" is the cost of auth
// and metering (docs/PERFORMANCE.md).
func BenchmarkAccess(b *testing.B) {
	db := testenv.Databases(b)[0]
	for _, mode := range []string{"bare", "key-memory", "key-redis"} {
		b.Run(mode, func(b *testing.B) {
			e := newAccessEnv(b, db, accessConfig{redis: mode == "key-redis", limit: ratelimit.Limit{Rate: 1e9, Burst: 1 << 30}})
			key, _ := e.newKey(b, "bench", ratelimit.Limit{})
			opts := server.Options{Resolver: e.res, Logger: slog.New(slog.DiscardHandler)}
			path := "/api/v2/estimateFee"
			if mode != "bare" {
				m := e.meter()
				stop := startMeter(m)
				b.Cleanup(func() { _ = stop() })
				a := *e.access
				a.Meter = m
				opts.Access = &a
				path = "/" + key + path
			}
			benchCheapRequest(b, server.New(opts), path)
		})
	}
}

// benchCheapRequest times one cheap request (a 405: no handler work) through
// h, one at a time and from every CPU, after one untimed request that warms
// the key cache.
func benchCheapRequest(b *testing.B, h http.Handler, path string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	h.ServeHTTP(httptest.NewRecorder(), req)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusMethodNotAllowed {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	})
}
