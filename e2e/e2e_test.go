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

// clientAnswers is what estimate.mjs printed: case name -> answer, and the
// params of each deploy case.
type clientAnswers struct {
	t       *testing.T
	raw     map[string]json.RawMessage
	deploys map[string]map[string]string
}

// runClients runs estimate.mjs against endpoint (a /api/v2/jsonRPC URL).
func runClients(t *testing.T, nodeBin, endpoint string, wallet *fees.ExternalMessage) *clientAnswers {
	t.Helper()
	in, err := json.Marshal(map[string]any{
		"endpoint": endpoint,
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
	a := &clientAnswers{t: t}
	require.NoError(t, json.Unmarshal(stdout, &a.raw), string(stdout))
	require.NoError(t, json.Unmarshal(a.raw["deploys"], &a.deploys))
	return a
}

func (a *clientAnswers) get(name string) answer {
	a.t.Helper()
	var ans answer
	require.Contains(a.t, a.raw, name)
	require.NoError(a.t, json.Unmarshal(a.raw[name], &ans))
	return ans
}

func (a *clientAnswers) ok(name string) fees.Fees {
	a.t.Helper()
	ans := a.get(name)
	require.Empty(a.t, ans.Error, name)
	require.NotNil(a.t, ans.Fees, name)
	return *ans.Fees
}

func (a *clientAnswers) failed(name, want string) {
	a.t.Helper()
	ans := a.get(name)
	require.Nil(a.t, ans.Fees, name)
	require.Contains(a.t, ans.Error, want, name)
}

// checkDeploysAndErrors: new wallets' deployments agree across both
// clients and the REST route; bad input surfaces as an error in each client.
func (a *clientAnswers) checkDeploysAndErrors(base string) {
	t := a.t
	t.Helper()
	for _, name := range []string{"deploy-v4", "deploy-v5r1"} {
		viaTon, viaTonweb := a.ok(name+"/ton"), a.ok(name+"/tonweb")
		require.Equal(t, viaTon, viaTonweb, name)
		require.NotZero(t, viaTon.GasFee, name)
		require.NotZero(t, viaTon.InFwdFee, name)
		require.NotZero(t, viaTon.FwdFee, name+": the transfer sends a message")
		require.Zero(t, viaTon.StorageFee, name+": a new account owes no storage")
		require.Equal(t, viaTon, restEstimate(t, base, a.deploys[name]), name+": REST route")
	}
	a.failed("bad-address/ton", "workchain 7")
	a.failed("bad-address/tonweb", "address")
	a.failed("bad-body/ton", "exit code 9")
	a.failed("bad-body/tonweb", "body: not base64")
}

// inlineWallet is the first external message of the block with its body
// inline, where in_fwd_fee is exact too.
func inlineWallet(t *testing.T, msgs []fees.ExternalMessage) *fees.ExternalMessage {
	for i := range msgs {
		if !msgs[i].BodyByRef {
			return &msgs[i]
		}
	}
	t.Fatal("no inline-body message in the block")
	return nil
}

// TestClientsEndToEnd runs estimate.mjs against the server at the block's
// time: a real wallet transfer must cost what the chain charged, through
// both clients.
func TestClientsEndToEnd(t *testing.T) {
	nodeBin := node(t)
	base, msgs := serveReplay(t)
	wallet := inlineWallet(t, msgs)
	a := runClients(t, nodeBin, base+"/api/v2/jsonRPC", wallet)
	for _, client := range []string{"ton", "tonweb"} {
		require.Equal(t, wallet.Charged, a.ok("wallet/"+client), "%s: wallet transfer vs what the chain charged", client)
	}
	a.checkDeploysAndErrors(base)
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
