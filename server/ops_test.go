package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
)

func TestReadyzNamesThePartDown(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{})
	h := newServer(t, server.Options{Resolver: e.res, Ready: []server.ReadyCheck{
		{Name: "database", Check: e.st.Ping},
		{Name: "redis", Check: func(context.Context) error { return errors.New("dial tcp 10.0.0.1:6379: refused") }},
	}})
	rec := doRequest(h, http.MethodGet, "/readyz", "")
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.JSONEq(t, `{"status":"unavailable","checks":{"database":"ok","redis":"down"}}`, rec.Body.String())
}

// Bodies over 1 MiB are 413 in the route's envelope, whether the length is
// declared or not, under a key too.
func TestTooLargeInEveryEnvelope(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{require: true})
	h := e.handler(nil)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	big := `{"query":"` + strings.Repeat("x", server.MaxBodyBytes) + `"}`
	for path, want := range map[string]string{
		"/graphql":            `{"errors":[{"message":"request body over 1048576 bytes","extensions":{"code":"TOO_LARGE"}}],"data":null}`,
		"/api/v2/jsonRPC":     `{"ok":false,"error":"request body over 1048576 bytes","code":413,"jsonrpc":"2.0","id":null}`,
		"/api/v2/estimateFee": `{"ok":false,"error":"request body over 1048576 bytes","code":413}`,
	} {
		for _, declared := range []bool{true, false} {
			req := httptest.NewRequest(http.MethodPost, "/"+key+path, strings.NewReader(big))
			req.Header.Set("Content-Type", "application/json")
			if !declared {
				req.ContentLength = -1
				req.Body = io.NopCloser(strings.NewReader(big))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, path)
			require.JSONEq(t, want, rec.Body.String(), path)
		}
	}
}

func TestMetricsExposition(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{})
	m := e.meter()
	h := e.handler(m)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	for range 3 {
		require.Equal(t, http.StatusOK, doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions?limit=1", "").Code)
	}
	doRequest(h, http.MethodGet, "/nope", "")
	h = newServer(t, server.Options{Resolver: e.res, Metrics: server.MetricsSources{Units: m.Counted}})
	doRequest(h, http.MethodGet, "/api/v3/actions?limit=1", "")
	body := doRequest(h, http.MethodGet, "/metrics", "").Body.String()
	require.Contains(t, body, `tonql_http_requests_total{route="/api/v3/actions",status="200"} 1`)
	require.Contains(t, body, `tonql_http_request_duration_seconds_count{route="/api/v3/actions"} 1`)
	require.Contains(t, body, `tonql_http_request_duration_seconds_bucket{route="/api/v3/actions",le="+Inf"} 1`)
	require.Contains(t, body, "tonql_request_units_total 3\n")
	require.NotContains(t, body, key)
}
