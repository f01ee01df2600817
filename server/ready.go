package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// ReadyCheck is one dependency /readyz pings (the database, Redis, lite
// servers). An Optional part that is down makes the server "degraded", still
// 200: lite servers being unreachable leaves every stored answer available,
// and taking the server out of a load balancer would lose those too.
type ReadyCheck struct {
	Name     string
	Check    func(ctx context.Context) error
	Optional bool
}

// readyTimeout bounds each check, so a hung dependency reads as down
// instead of hanging the probe.
const readyTimeout = 2 * time.Second

// ready answers 200 when every check passes and 503 naming the parts that
// are down. Errors are logged, not shown: they may carry host names.
func ready(checks []ReadyCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, code := "ok", http.StatusOK
		parts := make(map[string]string, len(checks))
		for _, c := range checks {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			err := c.Check(ctx)
			cancel()
			if err != nil && c.Optional {
				slog.WarnContext(r.Context(), "readyz: degraded", "part", c.Name, "err", err)
				parts[c.Name] = "degraded"
				if status == "ok" {
					status = "degraded"
				}
				continue
			}
			if err != nil {
				slog.WarnContext(r.Context(), "readyz: dependency down", "part", c.Name, "err", err)
				parts[c.Name], status, code = "down", "unavailable", http.StatusServiceUnavailable
				continue
			}
			parts[c.Name] = "ok"
		}
		writeJSONStatus(w, code, map[string]any{"status": status, "checks": parts})
	})
}
