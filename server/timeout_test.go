package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// timeoutCall is one request of each route family, and what its envelope
// must say when the request runs out of time.
type timeoutCall struct {
	name, method, path, body string
	check                    func(t *testing.T, body map[string]any)
}

func timeoutCalls(t *testing.T) []timeoutCall {
	deploy := walletDeploy(t)
	codeIs := func(want float64) func(*testing.T, map[string]any) {
		return func(t *testing.T, b map[string]any) { require.Equal(t, want, b["code"], b) }
	}
	return []timeoutCall{
		{"v3 actions", http.MethodGet, "/api/v3/actions?limit=1", "", codeIs(504)},
		{"v2 estimateFee", http.MethodPost, "/api/v2/estimateFee", deploy, func(t *testing.T, b map[string]any) {
			codeIs(504)(t, b)
			require.Equal(t, false, b["ok"], b)
		}},
		{"jsonRPC", http.MethodPost, "/api/v2/jsonRPC", rpcCall(`"t-1"`, "estimateFee", deploy), func(t *testing.T, b map[string]any) {
			codeIs(504)(t, b)
			require.Equal(t, false, b["ok"], b)
			require.Equal(t, "t-1", b["id"], "the id is echoed on a timeout too")
		}},
		{"graphql", http.MethodPost, "/graphql", `{"query":"{ actions(limit: 1) { actions { action_id } } }"}`, func(t *testing.T, b map[string]any) {
			errs, _ := b["errors"].([]any)
			require.NotEmpty(t, errs, b)
			ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
			require.Equal(t, "TIMEOUT", ext["code"], b)
		}},
	}
}

// TestRequestTimeout holds an exclusive lock on the tables the routes read,
// so their queries really block in Postgres until REQUEST_TIMEOUT: every
// route answers a timeout in its own envelope, never a 500, and once the
// lock is gone the same server answers the same requests normally (no
// connection left broken in the pool, no handler wedged).
func TestRequestTimeout(t *testing.T) {
	url := testenv.NewPostgresDatabase(t)
	if url == "" {
		t.Skip("the lock that makes queries slow needs Postgres")
	}
	e := newAccessEnv(t, testenv.Database{Name: "postgres", URL: url}, accessConfig{fees: true})
	srv := httptest.NewServer(newServer(t, server.Options{Resolver: e.res, RequestTimeout: 500 * time.Millisecond}))
	defer srv.Close()
	calls := timeoutCalls(t)
	// Warm the shared resolver (emulators, chain config, pooled connections)
	// through a handler without a timeout, so one-time work on a loaded
	// machine cannot turn into a timeout of its own.
	warm := httptest.NewServer(newServer(t, server.Options{Resolver: e.res}))
	sendAll(t, warm.URL, calls, "warm")
	warm.Close()

	unlock := lockTables(t, e.st, "actions, action_accounts, accounts, chain_configs")

	for _, c := range calls {
		t.Run("locked/"+c.name, func(t *testing.T) {
			status, body := send(t, srv.URL, c)
			require.NotEqual(t, http.StatusInternalServerError, status, body)
			if c.path != "/graphql" { // GraphQL reports errors in the body with 200
				require.Equal(t, http.StatusGatewayTimeout, status, body)
			}
			c.check(t, body)
		})
	}
	unlock()

	sendAll(t, srv.URL, calls, "unlocked")
}

// sendAll sends every call and expects success.
func sendAll(t *testing.T, base string, calls []timeoutCall, phase string) {
	for _, c := range calls {
		t.Run(phase+"/"+c.name, func(t *testing.T) {
			status, body := send(t, base, c)
			require.Equal(t, http.StatusOK, status, body)
			require.Nil(t, body["errors"], body)
		})
	}
}

func send(t *testing.T, base string, c timeoutCall) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body), string(raw))
	return resp.StatusCode, body
}

// TestClientGoneIsCountedApart: a client that hangs up while its query is
// blocked in Postgres is counted and logged as 499, not as a 504 of the
// server's (which an operator alerts on), and its error is not a warning.
func TestClientGoneIsCountedApart(t *testing.T) {
	url := testenv.NewPostgresDatabase(t)
	if url == "" {
		t.Skip("the lock that makes queries slow needs Postgres")
	}
	e := newAccessEnv(t, testenv.Database{Name: "postgres", URL: url}, accessConfig{})
	var access, warnings testenv.SyncBuffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewJSONHandler(&warnings, &slog.HandlerOptions{Level: slog.LevelWarn})))
	h := newServer(t, server.Options{Resolver: e.res, RequestTimeout: 30 * time.Second,
		Logger: slog.New(slog.NewJSONHandler(&access, nil))})
	srv := httptest.NewServer(h)
	defer srv.Close()

	unlock := lockTables(t, e.st, "actions, action_accounts")

	cctx, hangUp := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer hangUp()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, srv.URL+"/api/v3/actions?limit=1", nil)
	require.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the client gave up first")
	// The driver does not watch the context, only its deadline: the
	// abandoned query gives up at its 10 s read timeout (store.Open).
	require.Eventually(t, func() bool { return strings.Contains(access.String(), `"status":499`) }, 30*time.Second, 20*time.Millisecond,
		"the access line of the abandoned request: %s", access.String())
	unlock()

	rec := doRequest(h, http.MethodGet, "/metrics", "")
	require.Contains(t, rec.Body.String(), `tonql_http_requests_total{route="/api/v3/actions",status="499"} 1`)
	require.NotContains(t, rec.Body.String(), `status="504"`)
	require.NotContains(t, warnings.String(), "request failed", "a client's hang-up is not a warning")
}

// lockTables holds an exclusive lock on tables (a comma-separated list)
// in a transaction of its own, so the queries that read them really block
// in Postgres; unlock releases it (a failed test releases it at cleanup).
func lockTables(t *testing.T, st *store.Store, tables string) (unlock func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := st.DB().BeginTx(ctx, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback() })
	_, err = tx.ExecContext(ctx, "LOCK TABLE "+tables+" IN ACCESS EXCLUSIVE MODE")
	require.NoError(t, err)
	return func() { require.NoError(t, tx.Rollback()) }
}
