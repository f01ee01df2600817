package server_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// traceJSON is what the tests read of a Trace: its scalars are
// chain.TraceInfo's, which the schema binds.
type traceJSON struct {
	chain.TraceInfo
	Actions []struct {
		ActionID string `json:"action_id"`
	} `json:"actions"`
	Transactions []struct {
		Hash  string `json:"hash"`
		Lt    uint64 `json:"lt"`
		InMsg *struct {
			Hash string `json:"hash"`
		} `json:"in_msg"`
	} `json:"transactions"`
}

const traceFields = `trace_id start_lt end_lt start_utime end_utime complete transactions_count external_hash_norm
	actions { action_id } transactions { hash lt in_msg { hash } }`

// The trace links on real data: a swap's trace lists exactly the actions
// REST's trace_id filter returns (same order), and exactly the trace's
// stored transactions; each of its transactions links back to the actions
// REST's tx_hash filter returns, the swap among them; trace(trace_id)
// answers the same trace for either id form.
func TestGraphQLTraceLinksOnImportedData(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f, st := importedStore(t, db)
			swap := firstOfType(t, f, "JettonSwap")
			raw := f.graphql(t, `query($id: [String!]) { actions(filter: {action_id: $id}, limit: 1) { actions {
				action_id trace_id trace_end_lt trace_external_hash_norm
				trace { `+traceFields+` }
				transactions_full { hash actions { action_id transactions } } } } }`,
				map[string]any{"id": []string{swap}})
			var got struct {
				Data struct {
					Actions struct {
						Actions []struct {
							ActionID         string    `json:"action_id"`
							TraceID          string    `json:"trace_id"`
							TraceEndLt       uint64    `json:"trace_end_lt"`
							ExternalHashNorm *string   `json:"trace_external_hash_norm"`
							Trace            traceJSON `json:"trace"`
							TransactionsFull []struct {
								Hash    string `json:"hash"`
								Actions []struct {
									ActionID     string   `json:"action_id"`
									Transactions []string `json:"transactions"`
								} `json:"actions"`
							} `json:"transactions_full"`
						} `json:"actions"`
					} `json:"actions"`
				} `json:"data"`
				Errors []any `json:"errors"`
			}
			require.NoError(t, json.Unmarshal(raw, &got))
			require.Empty(t, got.Errors, string(raw))
			require.Len(t, got.Data.Actions.Actions, 1)
			a := got.Data.Actions.Actions[0]
			tr := a.Trace
			require.Equal(t, a.TraceID, tr.TraceID)
			require.Equal(t, a.TraceEndLt, tr.EndLt)
			require.Equal(t, a.ExternalHashNorm, tr.ExternalHashNorm)
			require.LessOrEqual(t, tr.StartLt, tr.EndLt)

			var traceActions []string
			for _, x := range tr.Actions {
				traceActions = append(traceActions, x.ActionID)
			}
			require.Contains(t, traceActions, swap)
			require.Greater(t, len(traceActions), 1, "a swap's trace has more than the swap")
			require.Equal(t, restIDs(t, f, url.Values{"trace_id": {a.TraceID}}), traceActions)

			stored, err := st.TraceTransactions(context.Background(), []string{a.TraceID})
			require.NoError(t, err)
			require.Len(t, tr.Transactions, len(stored))
			require.Equal(t, len(stored), tr.TransactionsCount)
			for i, tx := range stored {
				require.Equal(t, tx.Hash.Base64(), tr.Transactions[i].Hash)
				require.Equal(t, tx.Lt, tr.Transactions[i].Lt)
				if tx.InMsg != nil {
					require.Equal(t, tx.InMsg.Hash.Base64(), tr.Transactions[i].InMsg.Hash)
				}
			}

			require.NotEmpty(t, a.TransactionsFull)
			for _, tx := range a.TransactionsFull {
				var ids []string
				for _, x := range tx.Actions {
					ids = append(ids, x.ActionID)
					require.Contains(t, x.Transactions, tx.Hash)
				}
				require.Contains(t, ids, swap)
				require.Equal(t, restIDs(t, f, url.Values{"tx_hash": {tx.Hash}}), ids)
			}

			// The root field, by the hex form; the same trace.
			id, err := chain.ParseHash(a.TraceID)
			require.NoError(t, err)
			var root struct {
				Data struct {
					Trace traceJSON `json:"trace"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(f.graphql(t, `query($id: String!) { trace(trace_id: $id) { `+traceFields+` } }`,
				map[string]any{"id": hex.EncodeToString(id[:])}), &root))
			require.Equal(t, tr, root.Data.Trace)
		})
	}
}

// firstOfType is the id of the first action of typ, oldest first.
func firstOfType(t *testing.T, f *fixture, typ string) string {
	t.Helper()
	ids := restIDs(t, f, url.Values{"action_type": {typ}, "limit": {"1"}})
	require.NotEmpty(t, ids, typ)
	return ids[0]
}

// restIDs are the ids /api/v3/actions returns for q in page order
// (ascending, a page of 1,000 unless q says otherwise).
func restIDs(t *testing.T, f *fixture, q url.Values) []string {
	t.Helper()
	q.Set("sort", "asc")
	if !q.Has("limit") {
		q.Set("limit", "1000")
	}
	code, body := f.get(t, q.Encode())
	require.Equal(t, http.StatusOK, code, string(body))
	var page importedPage
	require.NoError(t, json.Unmarshal(body, &page))
	ids := []string{}
	for _, a := range page.Actions {
		ids = append(ids, a.ActionID)
	}
	return ids
}

// trace(trace_id) of a trace the store does not have is null; an id that
// is not a hash is an error naming the argument, as the trace_id filter's.
func TestGraphQLTraceByIDUnknownAndInvalid(t *testing.T) {
	h, _ := gqlServer(t)
	code, a, raw := postGQL(t, h, `{ trace(trace_id: "`+strings.Repeat("ab", 32)+`") { trace_id actions { action_id } } }`, nil)
	require.Equal(t, http.StatusOK, code, raw)
	require.Empty(t, a.Errors, raw)
	require.JSONEq(t, `{"trace": null}`, string(a.Data))

	_, a, raw = postGQL(t, h, `{ trace(trace_id: "nope") { trace_id } }`, nil)
	requireCode(t, a, raw, "INVALID_INPUT")
	require.Equal(t, "trace_id", a.Errors[0].Extensions["field"], raw)
	require.True(t, strings.HasPrefix(a.Errors[0].Message, "trace_id: "), raw)
}

// statementCounter counts the statements that contain each marker.
type statementCounter struct {
	mu      sync.Mutex
	markers []string
	counts  map[string]int
}

// observe counts a statement the store ran (Store.ObserveStatements).
func (c *statementCounter) observe(st store.Statement) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.markers {
		if strings.Contains(st.Query, m) {
			c.counts[m]++
		}
	}
}

// A page of 10 actions of different traces with every trace link costs
// one statement per link, not one per parent: the loaders batch them. (At
// most 2: a loader collects keys for 0.5 ms, which a slow machine may
// split; 10 parents would be 10.)
func TestGraphQLTraceLinksBatch(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f, st := importedStore(t, db)
			// Batches are counted: the loaders wait long enough that a
			// loaded machine's slow goroutine does not split one.
			f = &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st, LoaderWait: batchWait}})}
			// One action of each of 10 traces.
			var ids []string
			seen := map[string]bool{}
			code, body := f.get(t, "limit=200&sort=asc")
			require.Equal(t, http.StatusOK, code)
			var page importedPage
			require.NoError(t, json.Unmarshal(body, &page))
			for _, a := range page.Actions {
				if !seen[a.TraceID] && len(ids) < 10 {
					seen[a.TraceID] = true
					ids = append(ids, a.ActionID)
				}
			}
			require.Len(t, ids, 10)

			c := &statementCounter{counts: map[string]int{}, markers: []string{
				"FROM traces AS t",        // Traces
				"PARTITION BY a.trace_id", // TraceActions
				"PARTITION BY trace_id",   // TransactionsOfTraces
				"PARTITION BY at.tx_hash", // TransactionActions
			}}
			st.ObserveStatements(c.observe)
			raw := f.graphql(t, `query($id: [String!]) { actions(filter: {action_id: $id}, limit: 10) { actions {
				trace { trace_id actions { action_id } transactions { hash in_msg { hash } } }
				transactions_full { hash actions { action_id trace { trace_id } } } } } }`,
				map[string]any{"id": ids})
			require.NotContains(t, string(raw), `"errors"`)
			var got struct {
				Data struct {
					Actions struct {
						Actions []struct {
							Trace struct {
								TraceID string `json:"trace_id"`
							} `json:"trace"`
						} `json:"actions"`
					} `json:"actions"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(raw, &got))
			var traces []string
			for _, a := range got.Data.Actions.Actions {
				traces = append(traces, a.Trace.TraceID)
			}
			slices.Sort(traces)
			require.Len(t, slices.Compact(traces), 10, "10 parents of each link")
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, m := range c.markers {
				require.GreaterOrEqual(t, c.counts[m], 1, m)
				require.LessOrEqual(t, c.counts[m], 2, "%s ran %d times for 10 parents", m, c.counts[m])
			}
		})
	}
}

// A trace's lists count at their cap (1,000) in the complexity limit, so
// a page of actions each showing its trace's actions is refused past 25
// actions (each costs 2,003), and a trace's actions each showing their
// trace's actions again (about a million) always is.
func TestGraphQLComplexityCountsTraceLinks(t *testing.T) {
	h, _ := gqlServer(t)
	for _, tc := range []struct {
		query      string
		tooComplex bool
	}{
		{`{ actions(limit: 30) { actions { trace { actions { action_id type } } } } }`, true},
		{`{ actions(limit: 20) { actions { trace { actions { action_id type } } } } }`, false},
		{`{ trace(trace_id: "` + strings.Repeat("00", 32) + `") { actions { trace { actions { action_id } } } } }`, true},
		{`{ trace(trace_id: "` + strings.Repeat("00", 32) + `") { transactions { actions { trace { transactions { hash } } } } } }`, true},
		{`{ trace(trace_id: "` + strings.Repeat("00", 32) + `") { actions { action_id } transactions { hash actions { action_id } } } }`, false},
	} {
		code, a, raw := postGQL(t, h, tc.query, nil)
		if tc.tooComplex {
			require.Equal(t, http.StatusUnprocessableEntity, code, raw)
			requireCode(t, a, raw, "QUERY_TOO_COMPLEX")
			require.Contains(t, a.Errors[0].Message, "complexity", tc.query)
		} else {
			require.Equal(t, http.StatusOK, code, fmt.Sprint(tc.query, raw))
			require.Empty(t, a.Errors, raw)
		}
	}
}
