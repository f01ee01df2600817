package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/metering"
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

// keysFail runs `tonql keys ...` in-process, expects it to fail and returns
// its stderr.
func keysFail(t *testing.T, vars map[string]string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}
	require.Equal(t, 1, run(context.Background(), append([]string{"keys"}, args...), e), out.String())
	return errb.String()
}

// `keys limit` changes only the flags it is given; -1 is unlimited, 0 the
// server default, and nonsense or an unknown key is refused.
func TestKeysLimit(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			vars := map[string]string{"DATABASE_URL": db.URL}
			out := keysCmd(t, vars, "create", "--name", "bot", "--rate", "5")
			key := lastField(out)
			steps := []struct {
				args []string
				want string
			}{
				{[]string{"--rate", "50", "--burst", "100"}, "limit 50/s burst 100"},
				{[]string{"--rate", "2.5"}, "limit 2.5/s burst 100"},
				{[]string{"--burst", "0"}, "limit 2.5/s;"},
				{[]string{"--rate", "-1"}, "limit unlimited"},
				{[]string{"--rate", "0", "--burst", "30"}, "limit server default burst 30"},
			}
			for _, s := range steps {
				got := keysCmd(t, vars, append([]string{"limit", key}, s.args...)...)
				require.Contains(t, got, s.want, s.args)
			}
			require.Contains(t, keysCmd(t, vars, "list"), "server default burst 30")

			require.Contains(t, keysFail(t, vars, "limit", key), "give --rate, --burst or both")
			require.Contains(t, keysFail(t, vars, "limit", key, "--rate", "-5"), "--rate -5")
			require.Contains(t, keysFail(t, vars, "limit", key, "--burst", "-1"), "--burst -1")
			// A command line without its key is a usage error (exit 2).
			code, _, stderr := runCmd(vars, "keys", "limit", "--rate", "1")
			require.Equal(t, 2, code)
			require.Contains(t, stderr, "give exactly one key")
			require.Contains(t, keysFail(t, vars, "limit", strings.Repeat("0", 64), "--rate", "1"), "API key does not exist")
		})
	}
}

// Units counted before a restart stay countable with Redis configured:
// those a stopped server moved into the database, and those a crashed
// server had only pushed to Redis, which `keys usage` moves itself, while
// the restarted server runs and after it stops.
func TestKeysUsageAcrossRestartWithRedis(t *testing.T) {
	redisURL := "redis://" + testenv.RedisAddr(t) + "/12" // not TestKeysCommandsWithServe's database
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			vars := map[string]string{"DATABASE_URL": db.URL, "REDIS_URL": redisURL, "REQUIRE_API_KEY": "true"}
			key := lastField(keysCmd(t, vars, "create", "--name", "ci", "--rate", "-1"))
			use := func(base string, n int) {
				for range n {
					code, body := get(t, base+"/"+key+"/api/v3/actions?limit=1")
					require.Equal(t, 200, code, body)
				}
			}
			t.Run("before", func(t *testing.T) {
				base, _ := startServe(t, vars)
				use(base, 3)
			})
			crashedServer(t, db.URL, redisURL, key, 2)
			t.Run("after", func(t *testing.T) {
				base, _ := startServe(t, vars)
				require.Equal(t, "5", lastField(keysCmd(t, vars, "usage", key)))
				use(base, 1)
			})
			require.Equal(t, "6", lastField(keysCmd(t, vars, "usage", key)))
		})
	}
}

// crashedServer counts n units for key and pushes them to Redis the way a
// server does every 100 ms, then is gone without moving them to the
// database (a server killed between its push and its move).
func crashedServer(t *testing.T, dbURL, redisURL, key string, n int) {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t, dbURL)
	k, err := st.KeyByHash(ctx, apikey.Hash(key))
	require.NoError(t, err)
	require.NotNil(t, k)
	rdb, err := metering.DialRedis(redisURL)
	require.NoError(t, err)
	defer rdb.Close()
	m := newMeter(st, rdb)
	for range n {
		m.Count(k.ID)
	}
	require.NoError(t, m.Push(ctx))
}
