package server_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// TestMetricsScrapeParses reads /metrics the way Prometheus does (the text
// parser of prometheus/common) after traffic that touches every source:
// an estimate run twice (one emulation, then a fee cache hit), a GraphQL
// query twice (the query cache), a key used twice (the key cache). Every
// family must be there, with the type and the counts that traffic gives.
func TestMetricsScrapeParses(t *testing.T) {
	r := importFeeReplay(t, testenv.Databases(t)[0])
	key, id := apikey.Generate()
	_, err := r.st.CreateKey(t.Context(), store.APIKey{ID: id, Hash: apikey.Hash(key), Name: "metrics"})
	require.NoError(t, err)
	est := fees.New(r.st, cache.NewMemory(100), fees.Options{Emulators: 2, Now: func() time.Time { return r.now }})
	h := server.New(server.Options{
		Resolver: &resolvers.Resolver{Store: r.st, Fees: est},
		Access:   &server.Access{Keys: apikey.NewLookup(r.st, apikey.LookupOptions{})},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics: server.MetricsSources{Units: func() int64 { return 7 },
			Gauges: func() []server.Gauge {
				return []server.Gauge{{Name: "tonql_follow_lag_blocks", Help: "Masterchain blocks behind.", Value: 3}}
			}},
	})
	var body string
	for _, m := range r.msgs {
		if m.Charged.FwdFee == 0 { // one transaction: one emulation
			body = fmt.Sprintf(`{"address":%q,"body":%q}`, m.Account.ToRaw(), m.Body)
			break
		}
	}
	for range 2 {
		rec := doRequest(h, http.MethodPost, "/api/v2/estimateFee", body)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		rec = doRequest(h, http.MethodPost, "/graphql", `{"query":"{ __typename }"}`)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		rec = doRequest(h, http.MethodGet, "/"+key+"/healthz", "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	}

	rec := doRequest(h, http.MethodGet, "/metrics", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4"), rec.Header().Get("Content-Type"))
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)

	want := map[string]dto.MetricType{
		// runtime and process
		"go_goroutines":                 dto.MetricType_GAUGE,
		"go_memstats_heap_alloc_bytes":  dto.MetricType_GAUGE,
		"process_resident_memory_bytes": dto.MetricType_GAUGE,
		"process_cpu_seconds_total":     dto.MetricType_COUNTER,
		// database pool
		"go_sql_open_connections":     dto.MetricType_GAUGE,
		"go_sql_in_use_connections":   dto.MetricType_GAUGE,
		"go_sql_max_open_connections": dto.MetricType_GAUGE,
		"go_sql_wait_count_total":     dto.MetricType_COUNTER,
		// emulator
		"tonql_emulator_pool_size":         dto.MetricType_GAUGE,
		"tonql_emulator_pool_busy":         dto.MetricType_GAUGE,
		"tonql_emulator_pool_idle":         dto.MetricType_GAUGE,
		"tonql_emulator_pool_queue":        dto.MetricType_GAUGE,
		"tonql_emulation_duration_seconds": dto.MetricType_HISTOGRAM,
		// caches
		"tonql_cache_hits_total":           dto.MetricType_COUNTER,
		"tonql_cache_misses_total":         dto.MetricType_COUNTER,
		"tonql_graphql_cache_hits_total":   dto.MetricType_COUNTER,
		"tonql_graphql_cache_misses_total": dto.MetricType_COUNTER,
		"tonql_apikey_cache_hits_total":    dto.MetricType_COUNTER,
		"tonql_apikey_cache_misses_total":  dto.MetricType_COUNTER,
		// the names from before client_golang
		"tonql_http_requests_total":           dto.MetricType_COUNTER,
		"tonql_http_request_duration_seconds": dto.MetricType_HISTOGRAM,
		"tonql_rate_limited_total":            dto.MetricType_COUNTER,
		"tonql_request_units_total":           dto.MetricType_COUNTER,
		"tonql_follow_lag_blocks":             dto.MetricType_GAUGE,
	}
	for name, typ := range want {
		f, ok := fams[name]
		if !ok {
			t.Errorf("family %s missing", name)
			continue
		}
		require.Equal(t, typ, f.GetType(), name)
	}

	value := func(name string, labels ...string) float64 {
		t.Helper()
		f := fams[name]
		require.NotNil(t, f, name)
	metrics:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if got[labels[i]] != labels[i+1] {
					continue metrics
				}
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				return m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				return m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
		t.Fatalf("%s%v: no such series", name, labels)
		return 0
	}
	require.Equal(t, 2.0, value("tonql_http_requests_total", "route", "/api/v2/estimateFee", "status", "200"))
	require.Equal(t, 2.0, value("tonql_http_requests_total", "route", "/graphql", "status", "200"))
	require.Equal(t, 2.0, value("tonql_http_request_duration_seconds", "route", "/healthz"))
	require.Equal(t, 0.0, value("tonql_http_request_duration_seconds", "route", "/readyz"), "every route shows from the start")
	require.Len(t, fams["tonql_http_request_duration_seconds"].GetMetric()[0].GetHistogram().GetBucket(), 16) // 15 bounds and +Inf
	require.Equal(t, 7.0, value("tonql_request_units_total"))
	require.Equal(t, 3.0, value("tonql_follow_lag_blocks"))

	require.Equal(t, 1.0, value("tonql_emulation_duration_seconds"), "the second estimate came from the cache")
	require.Equal(t, 1.0, value("tonql_cache_hits_total"))
	require.Equal(t, 1.0, value("tonql_cache_misses_total"))
	require.Equal(t, 2.0, value("tonql_emulator_pool_size"))
	require.Equal(t, 0.0, value("tonql_emulator_pool_busy"))
	require.Equal(t, 1.0, value("tonql_emulator_pool_idle"))
	require.Equal(t, 0.0, value("tonql_emulator_pool_queue"))
	require.Equal(t, 1.0, value("tonql_graphql_cache_hits_total"))
	require.Equal(t, 1.0, value("tonql_graphql_cache_misses_total"))
	require.Equal(t, 1.0, value("tonql_apikey_cache_hits_total"))
	require.Equal(t, 1.0, value("tonql_apikey_cache_misses_total"))
	require.Positive(t, value("go_sql_max_open_connections", "db_name", "primary"))
}
