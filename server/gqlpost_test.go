package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
)

// Our POST transport answers byte for byte, status and content type as
// gqlgen's own: pages of real actions with details and address books,
// introspection (whose descriptions need HTML escaping), variables,
// errors of every kind, and the other response media type.
func TestGraphQLPostWritesWhatGqlgenWrites(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, traces)
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), traces[:12], func(path string, _ ingest.Stats, err error) {
		require.NoError(t, err, path)
	}))
	res := &resolvers.Resolver{Store: st}
	ours, _ := newGraphQLWith(res, Origins{}, postTransport{})
	theirs, _ := newGraphQLWith(res, Origins{}, transport.POST{})

	bodies := []string{
		`{"query":"{ actions(limit: 50) { actions { action_id type value details { __typename } transactions start_lt } address_book address_book_entries { address user_friendly domain interfaces } } }"}`,
		`{"query":"query($n: Int, $s: SortOrder) { actions(limit: $n, sort: $s) { actions { action_id end_lt } } }","variables":{"n":3,"s":"asc"}}`,
		`{"query":"{ __schema { types { name description fields { name description } } } }"}`,
		`{"query":"query A { actions(limit: 1) { actions { action_id } } } query B { __typename }","operationName":"B"}`,
		`{"query":"{ actions(limit: 0) { actions { action_id } } }"}`,
		`{"query":"{ actions(filter: {account: \"<nope>\"}) { actions { action_id } } }"}`,
		`{"query":"{ nosuchfield }"}`,
		`{"query":"{ actions( }"}`,
		`{"query":"query($n: Int!) { actions(limit: $n) { actions { action_id } } }"}`,
		`{"query":"query A { __typename } query B { __typename }"}`,
		`{"query":"{ __typename }","extensions":{}}`,
	}
	for _, accept := range []string{"", "application/json", "*/*", "application/graphql-response+json", "text/html"} {
		for _, body := range bodies {
			do := func(h http.Handler) *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if accept != "" {
					req.Header.Set("Accept", accept)
				}
				h.ServeHTTP(rec, req)
				return rec
			}
			want, got := do(theirs), do(ours)
			require.Equal(t, want.Code, got.Code, "%s / %s", accept, body)
			require.Equal(t, want.Header().Get("Content-Type"), got.Header().Get("Content-Type"), "%s / %s", accept, body)
			require.Equal(t, want.Body.String(), got.Body.String(), "%s / %s", accept, body)
		}
	}
}

// A response is written as json.Marshal writes it, also for data that a
// marshaller left with characters json.Marshal escapes.
func TestWriteGraphQLResponseMatchesMarshal(t *testing.T) {
	for _, data := range []string{`{"a":"b"}`, `{"a":"<b> & c"}`, "{\"a\":\"\u2028 \u2029 é\"}", `null`,
		"{\"a\":\"€ ‐ \u2029\"}", "{\"a\":\"€ ‐ ✓\"}", `{"a":"x>"}`, `{"a":"&"}`} {
		// gqlgen leaves Extensions an empty map when no extension added any.
		resp := &graphql.Response{Data: json.RawMessage(data), Extensions: map[string]any{}}
		want, err := json.Marshal(resp)
		require.NoError(t, err)
		rec := httptest.NewRecorder()
		writeGraphQLResponse(rec, resp)
		require.Equal(t, string(want), rec.Body.String())
		resp.Extensions = map[string]any{"cost": 1}
		want, _ = json.Marshal(resp)
		rec = httptest.NewRecorder()
		writeGraphQLResponse(rec, resp)
		require.Equal(t, string(want), rec.Body.String())
	}
}
