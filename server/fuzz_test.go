package server_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
)

// One fuzz target per route family (CI runs each for a bounded time; the
// seeds run with the ordinary tests). The invariants are the house rules
// for bad input: never a 500 or an INTERNAL error, always JSON in the
// route's own envelope, a status the error table knows, and (for paths)
// no key in the log and no redirect that drops it.

// fuzzHandler is a keyless server over a fresh SQLite store.
func fuzzHandler(f *testing.F, fees bool) http.Handler {
	e := newAccessEnv(f, testenv.Databases(f)[0], accessConfig{fees: fees})
	return server.New(server.Options{Resolver: e.res, RequestTimeout: 20 * time.Second, Logger: slog.New(slog.DiscardHandler)})
}

var knownStatus = map[int]bool{200: true, 400: true, 401: true, 404: true, 405: true, 413: true, 422: true, 429: true, 503: true, 504: true}

// checkEnvelope checks a REST or JSON-RPC answer: a known status, JSON,
// and for errors "error" with "code" equal to the status.
func checkEnvelope(t *testing.T, rec *httptest.ResponseRecorder, input string) {
	t.Helper()
	if !knownStatus[rec.Code] {
		t.Fatalf("status %d for %q: %s", rec.Code, input, rec.Body.String())
	}
	var body any
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.UseNumber() // an echoed id such as 1e999 is JSON, if not a float64
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("answer is not JSON for %q: %s", input, rec.Body.String())
	}
	objs, ok := body.([]any) // a JSON-RPC batch answer
	if !ok {
		objs = []any{body}
	}
	for _, o := range objs {
		m, ok := o.(map[string]any)
		if !ok {
			t.Fatalf("answer element is not an object for %q: %s", input, rec.Body.String())
		}
		if msg, isErr := m["error"]; isErr {
			code, _ := m["code"].(json.Number).Int64()
			if !knownStatus[int(code)] || code == 200 {
				t.Fatalf("error code %v for %q: %s", m["code"], input, rec.Body.String())
			}
			if s, _ := msg.(string); s == "" || s == "internal error" {
				t.Fatalf("error %q for %q", s, input)
			}
		}
	}
}

func FuzzRESTActions(f *testing.F) {
	h := fuzzHandler(f, false)
	for _, seed := range []string{"limit=1", "action_id=%00", "action_id=%FF", "account=0:" + strings.Repeat("0", 64),
		"tx_lt=-1", "start_utime=x&end_utime=1", "sort=DESC", "action_type=JettonTransfer,ton_transfer", "limit=100000",
		"offset=-1", "tx_hash=" + strings.Repeat("A", 44), "mc_seqno=4294967296", "include_accounts=maybe", "a=%zz"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		h := checked(t, h)
		rec := doRequest(h, http.MethodGet, "/api/v3/actions?"+url.PathEscape(query), "")
		if rec.Code == 404 {
			t.Fatalf("404 for %q", query)
		}
		checkEnvelope(t, rec, query)
	})
}

func FuzzEstimateFee(f *testing.F) {
	h := fuzzHandler(f, true)
	f.Add(walletDeploy(f))
	for _, seed := range []string{`null`, `{}`, `[]`, `{"address":1}`, `{"address":"0:` + strings.Repeat("0", 64) + `","body":"te6"}`,
		`{"address":"EQ","init_data":"x"}`, `{"address":"0:00","body":"","ignore_chksig":"yes"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		h := checked(t, h)
		rec := doRequest(h, http.MethodPost, "/api/v2/estimateFee", body)
		checkEnvelope(t, rec, body)
	})
}

func FuzzJSONRPC(f *testing.F) {
	h := fuzzHandler(f, true)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"estimateFee","params":` + walletDeploy(f) + `}`)
	for _, seed := range []string{`null`, `[]`, `[1,"x",null]`, `{"id":{"a":1},"method":5}`, `{"method":"estimateFee","params":[]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"nope"},{"id":"x","method":"estimateFee","params":{"address":"x"}}]`, `{"id":1e999}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		h := checked(t, h)
		rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", body)
		checkEnvelope(t, rec, body)
	})
}

func FuzzGraphQL(f *testing.F) {
	h := fuzzHandler(f, false)
	for _, q := range []string{"{ __typename }", fragmentBomb(20, "Query", "$"), "{" + strings.Repeat(" __typename", 900) + "}",
		`{ actions(filter: {action_id: "\u0000", tx_lt: -1}) { actions { action_id } } }`,
		`{ actions(filter: {action_id: [[[["x"]]]]}) { actions { action_id } } }`,
		`query($s: SortOrder) { actions(sort: $s, limit: 5000) { actions { action_id } } }`,
		`{ account(address: "0:00") { actions(first: 5, after: "AAAA") { edges { node { type details { __typename } } } } } }`,
		`{ a: estimateFee(address: "x", body: "") { fees { in_fwd_fee } } }`, `{ __schema { types { name } } }`, `fragment F on Query { ...F } { ...F }`} {
		f.Add(q, `{"s":"DESC"}`)
	}
	f.Fuzz(func(t *testing.T, query, vars string) {
		h := checked(t, h)
		body := map[string]any{"query": query}
		if json.Valid([]byte(vars)) {
			body["variables"] = json.RawMessage(vars)
		}
		raw, err := json.Marshal(body)
		if err != nil {
			return // a query that is not UTF-8 JSON cannot be sent
		}
		rec := doRequest(h, http.MethodPost, "/graphql", string(raw))
		checkGraphQLAnswer(t, rec, string(raw))
		// The same by GET, variables as given.
		rec = doRequest(h, http.MethodGet, "/graphql?"+url.Values{"query": {query}, "variables": {vars}}.Encode(), "")
		checkGraphQLAnswer(t, rec, query+" "+vars)
	})
}

// FuzzGraphQLBody sends raw bodies, which gqlgen's transport mishandled
// before they were checked (`null` panicked).
func FuzzGraphQLBody(f *testing.F) {
	h := fuzzHandler(f, false)
	for _, seed := range []string{`null`, `[]`, `{"query":1}`, `{"query":"{ __typename }","variables":[1]}`, `{"query":"{ __typename }"} x`,
		`{"query":"query($a:Int){ actions(limit:$a){ actions { type } } }","variables":{"a":"x"}}`, `{"operationName":"x","query":"{ __typename }"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		h := checked(t, h)
		rec := doRequest(h, http.MethodPost, "/graphql", body)
		checkGraphQLAnswer(t, rec, body)
	})
}

func checkGraphQLAnswer(t *testing.T, rec *httptest.ResponseRecorder, input string) {
	t.Helper()
	if !knownStatus[rec.Code] {
		t.Fatalf("status %d for %q: %.500s", rec.Code, input, rec.Body.String())
	}
	var a gqlAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatalf("answer is not JSON for %q: %.500s", input, rec.Body.String())
	}
	for _, e := range a.Errors {
		if e.Extensions["code"] == nil || e.Extensions["code"] == "INTERNAL" {
			t.Fatalf("error without a client code for %q: %.500s", input, rec.Body.String())
		}
		if len(e.Message) > 400 {
			t.Fatalf("message of %d bytes for %q", len(e.Message), input)
		}
	}
}

// FuzzPaths sends any path under a valid key and a few around it: the key
// never reaches a log, a redirect keeps it, and nothing is a 500.
func FuzzPaths(f *testing.F) {
	e := newAccessEnv(f, testenv.Databases(f)[0], accessConfig{require: true})
	key, _ := e.newKey(f, "k", ratelimit.Limit{})
	watch := &keyWatch{key: []byte(key)}
	logger := slog.New(slog.NewJSONHandler(watch, nil))
	old := slog.Default()
	slog.SetDefault(logger)
	f.Cleanup(func() { slog.SetDefault(old) })
	h := server.New(server.Options{Resolver: e.res, Access: e.access, Logger: logger})
	for _, seed := range []string{"/api/v3/actions", "//api/v3/actions", "/./api/v3/actions", "/../" + "KEY/api/v3/actions",
		"/api/../graphql", "/", "", ".", "/%2e%2e/graphql", "/api/v3/actions/..", "/\x00", "/\xff", "/api/v2/jsonRPC/"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tail string) {
		h := checked(t, h)
		tail = strings.ReplaceAll(tail, "KEY", key)
		for _, p := range []string{"/" + key + tail, tail + "/" + key, "/" + tail + "/" + key + "/api/v3/actions"} {
			target := (&url.URL{Path: p}).EscapedPath()
			if !strings.HasPrefix(target, "/") {
				target = "/" + target
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			if rec.Code >= 500 && rec.Code != 503 && rec.Code != 504 {
				t.Fatalf("status %d for %q", rec.Code, target)
			}
			if rec.Code/100 == 3 && !strings.HasPrefix(rec.Header().Get("Location"), "/"+key) {
				t.Fatalf("redirect from %q to %q drops the key", target, rec.Header().Get("Location"))
			}
			if watch.seen.Load() {
				t.Fatalf("key in the log after %q", target)
			}
		}
	})
}

// keyWatch is a log sink that notes whether a key was written to it.
type keyWatch struct {
	key  []byte
	seen atomic.Bool
}

func (w *keyWatch) Write(p []byte) (int, error) {
	if bytes.Contains(bytes.ToLower(p), w.key) {
		w.seen.Store(true)
	}
	return len(p), nil
}
