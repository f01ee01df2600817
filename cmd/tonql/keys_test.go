package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// keysCmd runs `tonql keys ...` in-process and returns its stdout.
func keysCmd(t *testing.T, vars map[string]string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}
	code := run(context.Background(), append([]string{"keys"}, args...), e)
	require.Equal(t, 0, code, errb.String())
	return out.String()
}

func lastField(s string) string {
	f := strings.Fields(s)
	return f[len(f)-1]
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The operator's round trip: create a key, serve with keys required, use
// it, stop the server, read the usage, revoke, and the key stops working.
func TestKeysCommandsWithServe(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		for _, withRedis := range []bool{false, true} {
			name := db.Name + "/memory"
			vars := map[string]string{"DATABASE_URL": db.URL, "REQUIRE_API_KEY": "true"}
			if withRedis {
				name = db.Name + "/redis"
				// A Redis database of this test's own: meters sharing a
				// Redis database must share the SQL database too.
				vars["REDIS_URL"] = "redis://" + testenv.RedisAddr(t) + "/11"
			}
			t.Run(name, func(t *testing.T) {
				out := keysCmd(t, vars, "create", "--name", "ci", "--rate", "-1")
				key := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
				require.Len(t, key, 64)
				require.Equal(t, "0", lastField(keysCmd(t, vars, "usage", key)))

				t.Run("serve", func(t *testing.T) {
					base, _ := startServe(t, vars)
					for range 3 {
						code, body := get(t, base+"/"+key+"/api/v3/actions?limit=1")
						require.Equal(t, 200, code, body)
					}
					code, body := get(t, base+"/api/v3/actions")
					require.Equal(t, 401, code)
					require.JSONEq(t, `{"error":"API key does not exist","code":401}`, body)
					code, body = get(t, base+"/readyz")
					require.Equal(t, 200, code, body)
					code, body = get(t, base+"/metrics")
					require.Equal(t, 200, code)
					require.Contains(t, body, "tonql_request_units_total 3\n")
				}) // serve has shut down and flushed here
				require.Equal(t, "3", lastField(keysCmd(t, vars, "usage", key)))
				require.Contains(t, keysCmd(t, vars, "list"), "ci")

				keysCmd(t, vars, "revoke", key)
				t.Run("revoked", func(t *testing.T) {
					base, _ := startServe(t, vars)
					code, _ := get(t, base+"/"+key+"/api/v3/actions")
					require.Equal(t, 401, code)
				})
				require.Equal(t, "3", lastField(keysCmd(t, vars, "usage", key)))
			})
		}
	}
}
