package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
)

// keyedRoute is one documented route, with a request that succeeds on it
// and the exact 401 answer in its own envelope.
type keyedRoute struct {
	name, method, path, body string
	denied                   string
}

func keyedRoutes(t testing.TB) []keyedRoute {
	deploy := walletDeploy(t)
	return []keyedRoute{
		{"actions", http.MethodGet, "/api/v3/actions?limit=1", "",
			`{"error":"API key does not exist","code":401}`},
		{"estimateFee", http.MethodPost, "/api/v2/estimateFee", deploy,
			`{"ok":false,"error":"API key does not exist","code":401}`},
		{"jsonRPC", http.MethodPost, "/api/v2/jsonRPC", `{"jsonrpc":"2.0","id":7,"method":"estimateFee","params":` + deploy + `}`,
			`{"ok":false,"error":"API key does not exist","code":401,"jsonrpc":"2.0","id":7}`},
		{"graphql", http.MethodPost, "/graphql", `{"query":"{ __typename }"}`,
			`{"errors":[{"message":"API key does not exist","extensions":{"code":"UNAUTHORIZED"}}],"data":null}`},
		{"graphiql", http.MethodGet, "/", "",
			`{"error":"API key does not exist","code":401}`},
	}
}

func TestKeysOnEveryRoute(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		for _, required := range []bool{true, false} {
			name := db.Name + "/optional"
			if required {
				name = db.Name + "/required"
			}
			t.Run(name, func(t *testing.T) {
				e := newAccessEnv(t, db, accessConfig{require: required, fees: true})
				h := e.handler(e.meter())
				good, _ := e.newKey(t, "good", ratelimit.Limit{})
				revoked, _ := e.newKey(t, "revoked", ratelimit.Limit{})
				_, err := e.st.RevokeKey(t.Context(), apikey.Hash(revoked))
				require.NoError(t, err)
				unknown, _ := apikey.Generate()

				for _, rt := range keyedRoutes(t) {
					t.Run(rt.name, func(t *testing.T) {
						rec := doRequest(h, rt.method, "/"+good+rt.path, rt.body)
						require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
						// Keys are hex: any case is the same key.
						rec = doRequest(h, rt.method, "/"+strings.ToUpper(good)+rt.path, rt.body)
						require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

						for what, key := range map[string]string{"unknown": unknown, "revoked": revoked, "malformed": "not-a-key", "empty-ish": "0"} {
							rec := doRequest(h, rt.method, "/"+key+rt.path, rt.body)
							require.Equal(t, http.StatusUnauthorized, rec.Code, what)
							require.JSONEq(t, rt.denied, rec.Body.String(), what)
						}

						rec = doRequest(h, rt.method, rt.path, rt.body)
						if required {
							require.Equal(t, http.StatusUnauthorized, rec.Code)
							require.JSONEq(t, rt.denied, rec.Body.String())
						} else {
							require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
						}
					})
				}
				// Probes work without a key in both modes.
				for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
					require.Equal(t, http.StatusOK, doRequest(h, http.MethodGet, p, "").Code, p)
				}
				// GraphiQL's relative links need the trailing slash.
				rec := doRequest(h, http.MethodGet, "/"+good, "")
				require.Equal(t, http.StatusPermanentRedirect, rec.Code)
				require.Equal(t, "/"+good+"/", rec.Header().Get("Location"))
			})
		}
	}
}

// The request id is the same in the X-Request-Id header, v2's "@extra" and
// the request's log line, and the key never reaches the log.
func TestRequestIDInHeaderExtraAndLog(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true, fees: true})
	h := e.handler(nil)
	key, k := e.newKey(t, "k", ratelimit.Limit{})
	rec := doRequest(h, http.MethodPost, "/"+key+"/api/v2/estimateFee", walletDeploy(t))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	id := rec.Header().Get("X-Request-Id")
	require.NotEmpty(t, id)
	var body struct {
		Result struct {
			Extra string `json:"@extra"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Equal(t, id, body.Result.Extra)

	logs := e.logs.String()
	require.NotContains(t, logs, key)
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m["msg"] == "request" {
			line = m
		}
	}
	require.NotNil(t, line, logs)
	require.Equal(t, id, line["request_id"])
	require.Equal(t, "POST", line["method"])
	require.Equal(t, "/{key}/api/v2/estimateFee", line["path"])
	require.EqualValues(t, 200, line["status"])
	require.Equal(t, k.ID, line["key_id"])
	require.Contains(t, line, "duration_ms")
}
