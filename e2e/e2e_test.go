// Package e2e drives a running tonql over HTTP with the ecosystem's own
// clients (@ton/ton, tonweb, from npm; see package.json and estimate.mjs).
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// node returns the node binary, or skips (fails under
// TEST_REQUIRE_SERVICES=1) when node or the npm packages are missing.
func node(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("node")
	why := "node not found in PATH"
	if err == nil {
		if _, err = os.Stat(filepath.Join("node_modules", "@ton", "ton")); err == nil {
			if _, err = os.Stat(filepath.Join("node_modules", "tonweb")); err == nil {
				return bin
			}
		}
		why = "e2e/node_modules missing (run: npm ci --prefix e2e)"
	}
	if os.Getenv("TEST_REQUIRE_SERVICES") == "1" {
		t.Fatalf("%s (required by TEST_REQUIRE_SERVICES=1)", why)
	}
	t.Skip(why + "; end-to-end client test skipped")
	return ""
}

// serveReplay starts the production handler on a real port over a SQLite
// store filled by `tonql import` of the fee-replay block. The estimator's
// clock is the block's time: `tonql serve` uses the wall clock, at which
// the block's signed wallet messages have long expired (their valid_until
// is minutes after the block), so this wires the same parts as serve.go
// with that one option changed.
func serveReplay(t *testing.T) (base string, msgs []fees.ExternalMessage) {
	t.Helper()
	path := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "tonql.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	_, err = st.Migrate(ctx)
	require.NoError(t, err)
	_, err = ingest.New(st).ImportFile(ctx, path)
	require.NoError(t, err)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	utime, msgs, err := fees.ReplayExternals(raw)
	require.NoError(t, err)

	c, err := cache.New("", 10_000)
	require.NoError(t, err)
	at := time.Unix(int64(utime), 0)
	est := fees.New(st, c, fees.Options{Now: func() time.Time { return at }})
	srv := &http.Server{
		Handler: server.New(server.Options{Resolver: &resolvers.Resolver{Store: st, Fees: est},
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		require.True(t, errors.Is(<-done, http.ErrServerClosed))
	})
	return "http://" + ln.Addr().String(), msgs
}

type answer struct {
	Fees  *fees.Fees `json:"fees"`
	Error string     `json:"error"`
}

// TestClientsEndToEnd runs estimate.mjs against the server: a real wallet
// transfer must cost what the chain charged, through both clients; new
// wallet deployments must agree across clients and with the REST route;
// bad input must surface as an error in each client.
func TestClientsEndToEnd(t *testing.T) {
	nodeBin := node(t)
	base, msgs := serveReplay(t)
	var wallet *fees.ExternalMessage
	for i := range msgs {
		if !msgs[i].BodyByRef { // the in_fwd_fee is exact only for inline bodies
			wallet = &msgs[i]
			break
		}
	}
	require.NotNil(t, wallet)

	in, err := json.Marshal(map[string]any{
		"endpoint": base + "/api/v2/jsonRPC",
		"wallet":   map[string]string{"address": wallet.Account.ToRaw(), "body": wallet.Body},
	})
	require.NoError(t, err)
	inPath := filepath.Join(t.TempDir(), "input.json")
	require.NoError(t, os.WriteFile(inPath, in, 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, "estimate.mjs", inPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())

	var out map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(stdout, &out), string(stdout))
	get := func(name string) answer {
		var a answer
		require.Contains(t, out, name)
		require.NoError(t, json.Unmarshal(out[name], &a))
		return a
	}
	ok := func(name string) fees.Fees {
		a := get(name)
		require.Empty(t, a.Error, name)
		require.NotNil(t, a.Fees, name)
		return *a.Fees
	}

	for _, client := range []string{"ton", "tonweb"} {
		got := ok("wallet/" + client)
		require.Equal(t, wallet.Charged, got, "%s: wallet transfer vs what the chain charged", client)
	}

	var deploys map[string]map[string]string
	require.NoError(t, json.Unmarshal(out["deploys"], &deploys))
	for _, name := range []string{"deploy-v4", "deploy-v5r1"} {
		viaTon, viaTonweb := ok(name+"/ton"), ok(name+"/tonweb")
		require.Equal(t, viaTon, viaTonweb, name)
		require.NotZero(t, viaTon.GasFee, name)
		require.NotZero(t, viaTon.InFwdFee, name)
		require.NotZero(t, viaTon.FwdFee, name+": the transfer sends a message")
		require.Zero(t, viaTon.StorageFee, name+": a new account owes no storage")
		require.Equal(t, viaTon, restEstimate(t, base, deploys[name]), name+": REST route")
	}

	for name, want := range map[string]string{
		"bad-address/ton":    "workchain 7",
		"bad-address/tonweb": "address",
		"bad-body/ton":       "exit code 9",
		"bad-body/tonweb":    "body: not base64",
	} {
		a := get(name)
		require.Nil(t, a.Fees, name)
		require.Contains(t, a.Error, want, name)
	}
}

func restEstimate(t *testing.T, base string, params map[string]string) fees.Fees {
	t.Helper()
	b, err := json.Marshal(params)
	require.NoError(t, err)
	resp, err := http.Post(base+"/api/v2/estimateFee", "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Result fees.Result `json:"result"`
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out.Result.SourceFees
}
