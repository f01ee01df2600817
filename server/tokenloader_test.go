package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// detailTokensQuery is a page of the fee-replay block's actions with
// every detail field that names a token.
const detailTokensQuery = `{ actions(limit: 100, filter: {exclude_action_type: ["TonTransfer"], supported_action_types: ["latest"]}) { actions { type details {
    ... on JettonTransfer { token { address symbol decimals totalSupply } }
    ... on JettonBurn { token { address symbol } }
    ... on JettonMint { token { address symbol } }
    ... on JettonSwap { token_in { address symbol } token_out { address symbol } }
    ... on StakeDeposit { asset_token { address symbol } }
    ... on StakeWithdrawal { asset_token { address symbol } }
    ... on NftItemTransfer { token { address name } collection_token { address name } }
} } } }`

// Token statements, as the SQL names their tables.
var tokenMarkers = []string{`"token_metadata"`, `"jetton_masters"`}

// importedTokens imports the fee-replay block with the token registry
// (its masters' rows) and toncenter's traces (many token actions, their
// tokens unknown to the registry).
func importedTokens(tb testing.TB, db testenv.Database) *store.Store {
	files := []string{testenv.Fixture(tb, tokenfixture.ReplayBlock)}
	traces, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(tb), "toncenter-traces", "traces", "*.json"))
	files = append(files, traces...)
	return importedWithTokens(tb, db, files)
}

// countTokenFields counts the detail token fields of a detailTokensQuery
// answer.
func countTokenFields(t *testing.T, body []byte) int {
	var out struct {
		Data struct {
			Actions struct {
				Actions []struct {
					Details map[string]any `json:"details"`
				} `json:"actions"`
			} `json:"actions"`
		} `json:"data"`
		Errors []any `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(body, &out))
	require.Empty(t, out.Errors, string(body))
	n := 0
	for _, a := range out.Data.Actions.Actions {
		for _, f := range []string{"token", "token_in", "token_out", "asset_token", "collection_token"} {
			if a.Details[f] != nil {
				n++
			}
		}
	}
	return n
}

// TestDetailTokensBatch: a page of actions reads the tokens of all its
// detail fields together (one statement per token table, two at most
// where a slow machine splits a batch), not two statements per field.
func TestDetailTokensBatch(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := importedTokens(t, db)
			c := &statementCounter{counts: map[string]int{}, markers: tokenMarkers}
			st.ObserveStatements(c.observe)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st, LoaderWait: batchWait}})
			body, err := json.Marshal(map[string]any{"query": detailTokensQuery})
			require.NoError(t, err)
			rec := doRequest(h, http.MethodPost, "/graphql", string(body))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			fields := countTokenFields(t, rec.Body.Bytes())
			require.Greater(t, fields, 4, "the block's actions name tokens")
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Logf("%d token fields: %v", fields, c.counts)
			for _, m := range tokenMarkers {
				require.GreaterOrEqual(t, c.counts[m], 1, m)
				require.LessOrEqual(t, c.counts[m], 2, "%s ran %d times for %d token fields", m, c.counts[m], fields)
			}
		})
	}
}

// BenchmarkDetailTokensPage: the detailTokensQuery page on the imported
// fee-replay block (docs/PERFORMANCE.md, "Detail tokens").
func BenchmarkDetailTokensPage(b *testing.B) {
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	for _, db := range testenv.Databases(b) {
		st := importedTokens(b, db)
		h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
		body, err := json.Marshal(map[string]any{"query": detailTokensQuery})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(db.Name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
			for i := 0; i < b.N; i++ {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
				req.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"errors"`) {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
		})
	}
}
