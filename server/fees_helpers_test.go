package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// feeReplay is a store loaded the way production loads it (ingest of the
// fee-replay file: the states before the block and its config) and the
// block's external messages with what the chain charged.
type feeReplay struct {
	tb   testing.TB
	st   *store.Store
	now  time.Time // the block's time: estimates run where the chain ran them
	msgs []fees.ExternalMessage
	cfg  []byte // config BOC, for the one-cell price
}

func importFeeReplay(t testing.TB, db testenv.Database) *feeReplay {
	t.Helper()
	path := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	ctx := context.Background()
	st := importedFile(t, db, path, false)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	utime, msgs, err := fees.ReplayExternals(raw)
	require.NoError(t, err)
	require.Len(t, msgs, 12, "external messages in the fixture block")
	cfg, err := st.Config(ctx)
	require.NoError(t, err)
	return &feeReplay{tb: t, st: st, now: time.Unix(int64(utime), 0), msgs: msgs, cfg: cfg.ConfigBOC}
}

// handler is the production handler over the replay store, with the
// estimator's clock pinned to the block time; c may be nil (no cache).
func (r *feeReplay) handler(c cache.Cache) http.Handler {
	return r.handlerWith(c, fees.Options{})
}

// handlerWith is handler with estimator options other than the defaults.
func (r *feeReplay) handlerWith(c cache.Cache, opts fees.Options) http.Handler {
	opts.Now = func() time.Time { return r.now }
	est := fees.New(r.st, c, opts)
	// The replay sends every message of its block in one batch, which
	// compares fees, not the work budget (cost_test.go tests that): under
	// -race the Go side of an emulation is several times dearer.
	return newServer(r.tb, server.Options{Resolver: &resolvers.Resolver{Store: r.st, Fees: est},
		Cost: cost.Limits{Work: time.Minute}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// v2Answer is a v2 or JSON-RPC response, success or error.
type v2Answer struct {
	OK      *bool           `json:"ok"`
	Result  *fees.Result    `json:"result"`
	Error   string          `json:"error"`
	Code    int             `json:"code"`
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
}

func decodeV2(t testing.TB, body []byte) v2Answer {
	t.Helper()
	var a v2Answer
	require.NoError(t, json.Unmarshal(body, &a), string(body))
	return a
}

// sameFees compares fee numbers only: the REST result carries "@type" and
// "@extra", GraphQL's does not.
func sameFees(t testing.TB, want, got *fees.Result, what string) {
	t.Helper()
	norm := func(r *fees.Result) []fees.Fees {
		out := []fees.Fees{r.SourceFees}
		out = append(out, r.DestinationFees...)
		for i := range out {
			out[i].Type = ""
		}
		return out
	}
	require.Equal(t, norm(want), norm(got), what)
}
