package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
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
	ours, theirs := postTransports(t)
	for _, accept := range []string{"", "application/json", "*/*", "application/graphql-response+json", "text/html"} {
		for _, body := range postBodies {
			want, got := postGraphQL(theirs, accept, body), postGraphQL(ours, accept, body)
			require.Equal(t, want.Code, got.Code, "%s / %s", accept, body)
			require.Equal(t, want.Header().Get("Content-Type"), got.Header().Get("Content-Type"), "%s / %s", accept, body)
			require.Equal(t, want.Body.String(), got.Body.String(), "%s / %s", accept, body)
		}
	}
}

// Answers written at once each get their own data: the buffers lent to
// the executor (cmd/gqlleaf's bufferEdit) go back to the pool only after
// their answer is written. Run with -race.
func TestGraphQLPostAnswersAtOnceKeepTheirOwnData(t *testing.T) {
	ours, theirs := postTransports(t)
	want := make([]string, len(postBodies))
	for i, body := range postBodies {
		want[i] = postGraphQL(theirs, "", body).Body.String()
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(postBodies))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 5; round++ {
				for k := range postBodies {
					i := (k + g + round) % len(postBodies) // bodies of every size meet
					if got := postGraphQL(ours, "", postBodies[i]).Body.String(); got != want[i] {
						errs <- postBodies[i] + "\ngot " + got
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// postTransports are two /graphql handlers over the same store of real
// actions, ours and one with gqlgen's POST transport.
func postTransports(t *testing.T) (ours, theirs http.Handler) {
	traces, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, traces)
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), traces[:12], func(path string, _ ingest.Stats, err error) {
		require.NoError(t, err, path)
	}))
	res := &resolvers.Resolver{Store: st}
	ours, _ = newGraphQLWith(res, Origins{}, postTransport{})
	theirs, _ = newGraphQLWith(res, Origins{}, transport.POST{})
	return ours, theirs
}

func postGraphQL(h http.Handler, accept, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	h.ServeHTTP(rec, req)
	return rec
}

// postBodies are pages of real actions with details and address books,
// introspection (whose descriptions need HTML escaping), variables and
// errors of every kind.
var postBodies = []string{
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
