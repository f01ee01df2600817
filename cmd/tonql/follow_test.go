package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonql/tonql/internal/testenv"
)

// refusedAddr is a local address nothing listens on.
func refusedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func runFollowCmd(t *testing.T, vars map[string]string, args ...string) (int, string) {
	t.Helper()
	vars["DATABASE_URL"] = "sqlite:" + filepath.Join(t.TempDir(), "tonql.db")
	errb := &testenv.SyncBuffer{}
	e := &env{stdout: io.Discard, stderr: errb, getenv: func(k string) string { return vars[k] }}
	// The deadline only keeps a broken build from hanging CI.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, append([]string{"follow"}, args...), e)
	require.NoError(t, ctx.Err(), "follow did not give up by itself")
	return code, errb.String()
}

func TestFollowGivesUpAfterMaxRetries(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	key := base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
	code, stderr := runFollowCmd(t, map[string]string{"LITE_SERVERS": refusedAddr(t) + ":" + key}, "--max-retries", "2")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "giving up after 2 failed attempts")
	require.Contains(t, stderr, "connection refused")
}

func TestFollowWithUnreachableConfigGivesUp(t *testing.T) {
	url := "http://" + refusedAddr(t) + "/global.config.json"
	code, stderr := runFollowCmd(t, map[string]string{"LITE_SERVERS_CONFIG": url}, "--max-retries", "2")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "giving up after 2 failed attempts")
	require.Contains(t, stderr, "lite-server config "+url)
}

func TestFollowRejectsBadFlags(t *testing.T) {
	code, stderr := runFollowCmd(t, map[string]string{}, "--max-retries", "-1")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--max-retries must not be negative")
}

// Lite servers down: serve starts anyway, answers from the store, and
// stops cleanly with its follower still retrying.
func TestServeWithFollowStartsDegraded(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	key := base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
	base, out := startServe(t, map[string]string{
		"DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "tonql.db"),
		"FOLLOW":       "true",
		"LITE_SERVERS": refusedAddr(t) + ":" + key,
	})
	require.Contains(t, out.String(), setting("FOLLOW", "true"))
	require.Contains(t, out.String(), setting("LITE_SERVERS", "LITE_SERVERS (1 servers)"))
	resp, err := http.Get(base + "/api/v3/actions")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.JSONEq(t, `{"actions":[],"address_book":{},"metadata":{}}`, string(body))

	// /readyz names the degradation but stays 200: stored data is served.
	resp, err = http.Get(base + "/readyz")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, string(body))
	require.JSONEq(t, `{"status":"degraded","checks":{"database":"ok","lite_servers":"degraded"}}`, string(body))

	resp, err = http.Get(base + "/metrics")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(body), "tonql_follow_lag_blocks ")
	require.Contains(t, string(body), "tonql_follow_failures_total ")
}
