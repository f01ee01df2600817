package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
)

// keyedRequest sends rt with key carried the way "how" says: in the
// X-API-Key header or the api_key query parameter of the bare route.
func keyedRequest(h http.Handler, rt keyedRoute, how, key string) *httptest.ResponseRecorder {
	path := rt.path
	req := httptest.NewRequest(rt.method, path, strings.NewReader(rt.body))
	switch how {
	case "header":
		req.Header.Set("X-API-Key", key)
	case "query":
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		req = httptest.NewRequest(rt.method, path+sep+"api_key="+key, strings.NewReader(rt.body))
	}
	if rt.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Keys in the X-API-Key header and the api_key query parameter (toncenter's
// conventions) open every route as a key in the path does: one unit per
// request, the same 401 for a wrong key, and the key never in the log.
func TestKeyInHeaderAndQuery(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true, fees: true})
	m := e.meter()
	stop := startMeter(m)
	h := e.handler(m)
	good, _ := e.newKey(t, "good", ratelimit.Limit{})
	unknown, _ := apikey.Generate()

	sent := 0
	for _, how := range []string{"header", "query"} {
		for _, rt := range keyedRoutes(t) {
			t.Run(how+"/"+rt.name, func(t *testing.T) {
				rec := keyedRequest(h, rt, how, good)
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				sent++
				for what, key := range map[string]string{"unknown": unknown, "malformed": "not-a-key"} {
					rec := keyedRequest(h, rt, how, key)
					require.Equal(t, http.StatusUnauthorized, rec.Code, what)
					require.JSONEq(t, rt.denied, rec.Body.String(), what)
				}
			})
		}
	}
	// A key in the path wins over a wrong one in the header.
	rt := keyedRoutes(t)[0]
	req := httptest.NewRequest(rt.method, "/"+good+rt.path, nil)
	req.Header.Set("X-API-Key", unknown)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	sent++

	require.NoError(t, stop())
	require.EqualValues(t, sent, e.units(t, good), "one unit per request, whichever way the key came")
	require.NotContains(t, e.logs.String(), good)
	require.NotContains(t, e.logs.String(), unknown)
}

// The api_key parameter is taken out of the URL before the routes see it:
// a v3 cursor or an echoed parameter can never carry the key on.
func TestQueryKeyRemovedBeforeRoutes(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true})
	h := e.handler(nil)
	good, _ := e.newKey(t, "good", ratelimit.Limit{})
	rec := doRequest(h, http.MethodGet, "/api/v3/actions?limit=1&api_key="+good+"&sort=sideways", "")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "sort")
	require.NotContains(t, rec.Body.String(), good)
}

// Paths a browser or crawler asks every host for, the contract and the
// explorer's files are never read as keys: no 401, nothing looked up.
func TestReservedPathsAreNotKeys(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true})
	h := e.handler(nil)
	rec := doRequest(h, http.MethodGet, "/robots.txt", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), "Disallow: /")
	rec = doRequest(h, http.MethodGet, "/favicon.ico", "")
	require.Equal(t, http.StatusNoContent, rec.Code)
	// Under a key they are ordinary (unknown) routes of that key.
	good, _ := e.newKey(t, "good", ratelimit.Limit{})
	rec = doRequest(h, http.MethodGet, "/"+good+"/nothing-here", "")
	require.Equal(t, http.StatusNotFound, rec.Code)
}

// 401 and 429 raised before the JSON-RPC handler echo the call's id, so a
// client that matches answers by id knows which call was refused.
func TestJSONRPCRefusalsEchoID(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true, limit: ratelimit.Limit{Rate: 0.001, Burst: 1}})
	h := e.handler(nil)
	good, _ := e.newKey(t, "good", ratelimit.Limit{})
	call := func(key, id string) map[string]any {
		req := httptest.NewRequest(http.MethodPost, "/api/v2/jsonRPC",
			strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"method":"getMasterchainInfo","params":{}}`))
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
		body["status"] = float64(rec.Code)
		return body
	}
	b := call("not-a-key", `"abc"`)
	require.Equal(t, map[string]any{"ok": false, "error": "API key does not exist", "code": 401.0, "jsonrpc": "2.0", "id": "abc", "status": 401.0}, b)
	require.EqualValues(t, 401, call("nope", "12")["code"])
	require.EqualValues(t, 12, call("nope", "12")["id"])

	call(good, "1") // the burst of one
	b = call(good, "2")
	require.EqualValues(t, 429, b["status"])
	require.EqualValues(t, 2, b["id"])
	// A batch's refusal cannot name one call: null.
	req := httptest.NewRequest(http.MethodPost, "/api/v2/jsonRPC", strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"getMasterchainInfo"}]`))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), `"id":null`)
}
