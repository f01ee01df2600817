package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonql/tonql/internal/testenv"
)

// startServe runs `tonql serve` in-process on a free port with the given
// environment and returns its base URL; the server stops when the test ends
// and must shut down cleanly.
func startServe(t *testing.T, vars map[string]string, args ...string) (string, *testenv.SyncBuffer) {
	t.Helper()
	out := &testenv.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	// Start-up lines are log lines: the test reads the log stream.
	e := &env{stdout: out, stderr: out, getenv: func(k string) string { return vars[k] }}
	go func() { done <- run(ctx, append([]string{"serve", "-listen", "127.0.0.1:0"}, args...), e) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			require.Equal(t, 0, code, out.String())
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not shut down")
		}
	})
	re := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	for i := 0; i < 600; i++ {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return "http://" + m[1], out
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not start: %s", out.String())
	return "", nil
}

// The zero-setup promise: no Postgres, no Redis, only a SQLite file that
// serve creates, and every documented entry point answers.
func TestServeZeroSetup(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "nested", "tonql.db")
	base, out := startServe(t, map[string]string{"DATABASE_URL": "sqlite:" + dbPath})
	require.Contains(t, out.String(), setting("REDIS_URL", "(none: in-process cache)"))
	require.Contains(t, out.String(), setting("PPROF_ADDR", "(none: profiler off)"))
	require.FileExists(t, dbPath)

	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/api/v3/actions")
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"actions":[],"address_book":{},"metadata":{}}`, body)
	code, body = get("/")
	require.Equal(t, 200, code)
	require.Contains(t, strings.ToLower(body), "graphiql")
	resp, err := http.Post(base+"/graphql", "application/json",
		strings.NewReader(`{"query":"{ actions { actions { action_id } address_book } }"}`))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.JSONEq(t, `{"data":{"actions":{"actions":[],"address_book":{}}}}`, string(b))
}

func TestConfigRedactsSecrets(t *testing.T) {
	var b bytes.Buffer
	c := &config{ListenAddr: "x", DatabaseURL: "postgres://u:hunter2@h/db", RedisURL: "redis://:s3cret@h:6379/0", Network: "mainnet", groups: groupAll}
	c.log(slog.New(slog.NewJSONHandler(&b, nil)))
	require.NotContains(t, b.String(), "hunter2")
	require.NotContains(t, b.String(), "s3cret")
	require.Contains(t, b.String(), "postgres://u:xxxxx@h/db")
}

func TestUnknownCommandAndBadConfig(t *testing.T) {
	var errb bytes.Buffer
	e := &env{stdout: io.Discard, stderr: &errb, getenv: func(string) string { return "" }}
	require.Equal(t, 2, run(context.Background(), []string{"nope"}, e))
	require.Contains(t, errb.String(), "unknown command")
	errb.Reset()
	require.Equal(t, 1, run(context.Background(), []string{"serve", "-network", "moon"}, e))
	require.Contains(t, errb.String(), "NETWORK must be mainnet or testnet")
	errb.Reset()
	require.Equal(t, 1, run(context.Background(), []string{"serve", "-database-url", "mysql://x"}, e))
	require.Contains(t, errb.String(), "DATABASE_URL must start with")
}

// A listen address that cannot be taken fails serve before it creates or
// migrates anything: no database file is left behind.
func TestServeChecksListenAddrFirst(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "data", "tonql.db")
	for _, addr := range []string{busy.Addr().String(), "127.0.0.1:notaport"} {
		code, stdout, stderr := runCmd(map[string]string{"DATABASE_URL": "sqlite:" + dbPath}, "serve", "-listen", addr)
		require.Equal(t, 1, code, stdout)
		require.Contains(t, stderr, "LISTEN_ADDR="+addr)
		require.NotContains(t, stdout, "migrated:")
		require.NoDirExists(t, filepath.Dir(dbPath))
	}
}

// setting is how a setting shows in the start-up "config" log line.
func setting(key, value string) string {
	b, _ := json.Marshal(map[string]string{key: value})
	return string(b[1 : len(b)-1])
}

// Every start-up line of serve is a structured log line: the settings,
// the migrations, the addresses and the shutdown, nothing else on stdout.
func TestServeStartupLinesAreStructured(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "tonql.db")
	var out testenv.SyncBuffer
	var stdout bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	e := &env{stdout: &stdout, stderr: &out, getenv: func(k string) string { return map[string]string{"DATABASE_URL": "sqlite:" + dbPath}[k] }}
	go func() { done <- run(ctx, []string{"serve", "-listen", "127.0.0.1:0"}, e) }()
	testenv.WaitFor(t, 60*time.Second, "listening", func() bool { return strings.Contains(out.String(), `"msg":"listening"`) })
	cancel()
	require.Equal(t, 0, <-done, out.String())
	require.Empty(t, stdout.String())
	msgs := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		require.Contains(t, m, "time")
		require.Contains(t, m, "level")
		msgs[m["msg"].(string)] = m
	}
	require.Equal(t, "sqlite:"+dbPath, msgs["config"]["DATABASE_URL"])
	require.Contains(t, msgs, "migrated")
	require.Regexp(t, `^127\.0\.0\.1:\d+$`, msgs["listening"]["addr"])
	require.Equal(t, "http://"+msgs["listening"]["addr"].(string)+"/graphql", msgs["listening"]["graphql"])
	require.Contains(t, msgs, "shutting down")
}
