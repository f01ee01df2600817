package server_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/openapi"
	"github.com/tonql/tonql/ratelimit"
)

// routeLabels reads the route labels of tonql_http_requests_total from a
// scrape of /metrics, with their counts summed over statuses.
func routeLabels(t *testing.T, h http.Handler) map[string]float64 {
	t.Helper()
	fams := scrapeMetrics(t, h)
	out := map[string]float64{}
	for _, m := range fams["tonql_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "route" {
				out[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// Every documented route (the OpenAPI document's paths, bare and under a
// key) counts under a label of its own; every path no route serves shares
// one bounded label, however many of them clients invent.
func TestMetricsLabelEveryRoute(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{})
	h := e.handler(nil)
	key, _ := e.newKey(t, "m", ratelimit.Limit{})

	rec := doRequest(openapi.Document(), http.MethodGet, "/api/openapi.json", "") // not through h: not counted
	require.Equal(t, http.StatusOK, rec.Code)
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Greater(t, len(doc.Paths), 11)
	// A templated path is labelled by its pattern (/api/v3/webhooks/{id}),
	// or, when the router serves it by a prefix pattern
	// (/explorer/assets/{version}/{name}), by that prefix.
	template := regexp.MustCompile(`\{[^}]*\}`)
	want := map[string]string{}
	for p := range doc.Paths {
		want[p] = p
		if i := strings.Index(p, "{"); i >= 0 {
			want[p] = p[:i]
		}
		// Answers of any status: a GET without parameters may be a 405
		// or a 422, still the route's.
		doRequest(h, http.MethodGet, template.ReplaceAllString(p, "x"), "")
		doRequest(h, http.MethodGet, "/"+key+template.ReplaceAllString(p, "x"), "")
	}
	for _, p := range []string{"/nope", "/api/v3/nope", "/api/v9/x/y", "/graphiql", "/v3/actions"} {
		require.Equal(t, http.StatusNotFound, doRequest(h, http.MethodGet, p, "").Code, p)
	}
	labels := routeLabels(t, h)
	for p := range doc.Paths {
		if _, ok := labels[p]; ok {
			want[p] = p
		}
		require.Equal(t, 2.0, labels[want[p]], "%s: bare and under a key, under its own label (%v)", p, labels)
	}
	require.Equal(t, 5.0, labels["unmatched"], labels)
	require.NotContains(t, labels, "other")
	for l := range labels {
		require.NotContains(t, l, key)
	}
}

// On a server that does not require keys, a mistyped path is a 404; a
// malformed key in front of a real route, and any well-formed unknown
// key, are still 401. With keys required, everything without a good key
// is 401 as before.
func TestMistypedPathIsNotAKey(t *testing.T) {
	db := testenv.Databases(t)[0]
	for _, required := range []bool{false, true} {
		e := newAccessEnv(t, db, accessConfig{require: required})
		h := e.handler(nil)
		unknownKey := strings.Repeat("ab", 32)
		cases := map[string]int{
			"/graphiql":                   http.StatusNotFound,
			"/v3/actions":                 http.StatusNotFound,
			"/apii/v3/actions":            http.StatusNotFound,
			"/actions":                    http.StatusNotFound,
			"/not-a-key/api/v3/actions":   http.StatusUnauthorized,
			"/" + unknownKey + "/nope":    http.StatusUnauthorized,
			"/" + unknownKey + "/graphql": http.StatusUnauthorized,
			"/api/v3/actionz":             http.StatusNotFound,
		}
		for path, want := range cases {
			if required {
				want = http.StatusUnauthorized
			}
			rec := doRequest(h, http.MethodGet, path, "")
			require.Equal(t, want, rec.Code, "required=%v %s: %s", required, path, rec.Body.String())
			if want == http.StatusNotFound {
				require.NotContains(t, rec.Body.String(), "API key")
			}
		}
	}
}

// scrapeMetrics reads /metrics of h, parsed by family name.
func scrapeMetrics(t testing.TB, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := doRequest(h, http.MethodGet, "/metrics", "")
	require.Equal(t, http.StatusOK, rec.Code)
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)
	return fams
}
