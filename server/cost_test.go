package server_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/loopstate"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// rpcItem is one answer of a JSON-RPC batch.
type rpcItem struct {
	OK     bool            `json:"ok"`
	Code   int             `json:"code"`
	Error  string          `json:"error"`
	Result json.RawMessage `json:"result"`
}

func batchOf(call string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(call+",", n), ",") + "]"
}

// Finding of issue 29: a batch of 100 runGetMethod on a contract that
// loops until its gas runs out cost 10.7 s of CPU in one request, and the
// calls the request timeout cut answered "database query timed out". The
// batch now shares one work budget: the first call runs to the gas limit
// (exit code -14, as on a lite server), and the calls the budget cannot
// hold are not run and say so, in order. The contract is stored the way
// import stores states.
func TestLoopingGetMethodBatchStopsAtBudget(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			e := newAccessEnv(t, db, accessConfig{fees: true, limit: ratelimit.Limit{}})
			st, err := loopstate.State(uint32(time.Now().Unix()))
			require.NoError(t, err)
			require.NoError(t, e.st.SaveBatch(t.Context(), &store.Batch{Accounts: []chain.AccountState{st}}))
			h := newServer(t, server.Options{Resolver: e.res, Access: e.access, RequestTimeout: 60 * time.Second,
				Logger: slog.New(slog.DiscardHandler)})
			key, _ := e.newKey(t, "k", ratelimit.Limit{Rate: -1})
			call := rpcCall("1", "runGetMethod", fmt.Sprintf(`{"address":%q,"method":"seqno","stack":[]}`, loopstate.Address))
			rec := doRequest(h, http.MethodPost, "/"+key+"/api/v2/jsonRPC", batchOf(call, 100))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var items []rpcItem
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &items))
			require.Len(t, items, 100)
			var res struct {
				ExitCode int   `json:"exit_code"`
				GasUsed  int64 `json:"gas_used"`
			}
			require.True(t, items[0].OK, "the first call runs: %s", items[0].Error)
			require.NoError(t, json.Unmarshal(items[0].Result, &res))
			require.Equal(t, -14, res.ExitCode, "out of gas")
			require.GreaterOrEqual(t, res.GasUsed, int64(1_000_000))
			ran := 0
			for ran < len(items) && items[ran].OK {
				ran++
			}
			require.Less(t, ran, 100, "the budget stopped the batch")
			for i, it := range items[ran:] {
				require.False(t, it.OK, "call %d ran after one was stopped", ran+i)
				require.Equal(t, http.StatusTooManyRequests, it.Code, it.Error)
				require.Contains(t, it.Error, "budget")
				require.NotContains(t, it.Error, "timed out")
			}
		})
	}
}

// Finding of issue 29: a key with burst 5 had all 100 calls of a batch
// answered (the batch was admitted on one token, the rest taken as debt).
// Each call now takes its token before it runs: 5 run, the other 95 are
// refused in order with the limit's message and cost no unit.
func TestJSONRPCBatchAdmittedPerCall(t *testing.T) {
	db := testenv.Databases(t)[0]
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "local", true: "redis"}[shared]
		t.Run(name, func(t *testing.T) {
			clk := &testClock{t: time.Unix(1_700_000_000, 0)}
			e := newAccessEnv(t, db, accessConfig{require: true, redis: shared, limit: ratelimit.Limit{Rate: 1, Burst: 5}, now: clk.Now})
			a := e.access
			if shared {
				a = e.sharedAccess(clk.Now)
			}
			m := e.meter()
			a.Meter = m
			h := newServer(t, server.Options{Resolver: e.res, Access: a, Logger: slog.New(slog.DiscardHandler)})
			key, _ := e.newKey(t, "k", ratelimit.Limit{})
			rec := doRequest(h, http.MethodPost, "/"+key+"/api/v2/jsonRPC", batchOf(`{"jsonrpc":"2.0","id":1,"method":"getNothing"}`, 100))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var items []rpcItem
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &items))
			require.Len(t, items, 100)
			for i, it := range items {
				if i < 5 {
					require.Equal(t, http.StatusUnprocessableEntity, it.Code, "call %d ran: %s", i, it.Error)
					continue
				}
				require.Equal(t, http.StatusTooManyRequests, it.Code, "call %d", i)
				require.Contains(t, it.Error, "rate limit exceeded")
			}
			// The bucket is empty, not in debt: one second gives a token.
			rec = doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions", "")
			require.Equal(t, http.StatusTooManyRequests, rec.Code)
			clk.Add(time.Second)
			rec = doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions", "")
			require.Equal(t, http.StatusOK, rec.Code)
			require.NoError(t, m.Flush(t.Context()))
			require.EqualValues(t, 5+1, e.units(t, key), "five calls and one request; refusals cost nothing")
		})
	}
}

// Finding of issue 29: 30 estimateFee (or emulateMessage) aliases in one
// GraphQL operation ran on one token. Each root field that is a request
// of its own now takes its token before it runs: on a key with burst 5,
// five estimates run and the other 25 fields answer RATE_LIMITED; the
// units are the five that ran.
func TestGraphQLEstimateAliasesAdmittedPerField(t *testing.T) {
	db := testenv.Databases(t)[0]
	clk := &testClock{t: time.Unix(1_700_000_000, 0)}
	e := newAccessEnv(t, db, accessConfig{require: true, fees: true, limit: ratelimit.Limit{Rate: 1, Burst: 5}, now: clk.Now})
	m := e.meter()
	h := e.handler(m)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	var deploy struct{ Address, Body, InitCode, InitData string }
	require.NoError(t, json.Unmarshal([]byte(strings.NewReplacer(`"init_code"`, `"InitCode"`, `"init_data"`, `"InitData"`).Replace(walletDeploy(t))), &deploy))
	field := fmt.Sprintf(`estimateFee(address: %q, body: %q, init_code: %q, init_data: %q) { source_fees { in_fwd_fee } }`,
		deploy.Address, deploy.Body, deploy.InitCode, deploy.InitData)
	var q strings.Builder
	q.WriteString("{")
	for i := range 30 {
		fmt.Fprintf(&q, " a%d: %s", i, field)
	}
	q.WriteString(" }")
	body, err := json.Marshal(map[string]string{"query": q.String()})
	require.NoError(t, err)
	rec := doRequest(h, http.MethodPost, "/"+key+"/graphql", string(body))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		Errors []struct {
			Path       []any          `json:"path"`
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	limited := map[any]bool{}
	for _, e := range out.Errors {
		require.Equal(t, "RATE_LIMITED", e.Extensions["code"], e.Message)
		require.Len(t, e.Path, 1)
		limited[e.Path[0]] = true
	}
	require.Len(t, limited, 25, "five fields ran, one per token")
	require.NoError(t, m.Flush(t.Context()))
	require.EqualValues(t, 5, e.units(t, key))
}

// The sibling in GraphQL: aliases let one operation run estimateFee many
// times (up to the alias limit); each one after the first is charged.
func TestGraphQLEstimatesChargedPerField(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true, fees: true})
	m := e.meter()
	h := e.handler(m)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	var deploy struct{ Address, Body, InitCode, InitData string }
	require.NoError(t, json.Unmarshal([]byte(strings.NewReplacer(`"init_code"`, `"InitCode"`, `"init_data"`, `"InitData"`).Replace(walletDeploy(t))), &deploy))
	field := fmt.Sprintf(`estimateFee(address: %q, body: %q, init_code: %q, init_data: %q) { source_fees { in_fwd_fee } }`,
		deploy.Address, deploy.Body, deploy.InitCode, deploy.InitData)
	q := "{ a: " + field + " b: " + field + " c: " + field + " }"
	body, err := json.Marshal(map[string]string{"query": q})
	require.NoError(t, err)
	rec := doRequest(h, http.MethodPost, "/"+key+"/graphql", string(body))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NotContains(t, rec.Body.String(), "errors")
	rec = doRequest(h, http.MethodPost, "/"+key+"/graphql", `{"query":"{ __typename }"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NoError(t, m.Flush(t.Context()))
	require.EqualValues(t, 3+1, e.units(t, key))
}

// Finding of issue 29: during a Postgres outage answers that were 503 were
// charged. A request's unit is counted once its answer is known, and an
// answer the server failed to give (5xx) costs none; its 4xx and 2xx
// neighbours cost one each. A server without an estimator answers fee
// routes 503, a dependency that is down.
func TestServerFailuresCostNoUnit(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true})
	m := e.meter()
	h := e.handler(m)
	key, _ := e.newKey(t, "k", ratelimit.Limit{Rate: -1})
	for range 3 {
		rec := doRequest(h, http.MethodPost, "/"+key+"/api/v2/estimateFee", walletDeploy(t))
		require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	}
	rec := doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions?limit=0", "")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	rec = doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions", "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, m.Flush(t.Context()))
	require.EqualValues(t, 2, e.units(t, key), "the 422 and the 200; none of the three 503s")
}

// Findings of issue 29: GET /api/v3/actions?limit=1000&include_transactions=true
// was an 80 MB answer (GraphQL bounded the same data; REST did not), and
// offset had no cap (1e9 was accepted; offset 390,000 cost about 1 s of
// Postgres). An answer now holds at most cost.MaxRows rows, the
// transactions counted before they are read, with a 422 naming limit;
// offset is capped with a 422 naming offset that points to cursors. On
// every fixture imported.
func TestRESTAnswersBoundedInRowsAndOffset(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f := importedServer(t, db)
			rec := doRequest(f.h, http.MethodGet, "/api/v3/actions?limit=1000&include_transactions=true", "")
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%.300s", rec.Body.String())
			require.Contains(t, rec.Body.String(), "limit")
			require.Contains(t, rec.Body.String(), "include_transactions")

			// A page within the bound answers, and holds at most the bound.
			rec = doRequest(f.h, http.MethodGet, "/api/v3/actions?limit=50&include_transactions=true", "")
			require.Equal(t, http.StatusOK, rec.Code, "%.300s", rec.Body.String())
			var page struct {
				Actions []struct {
					Transactions     []string          `json:"transactions"`
					TransactionsFull []json.RawMessage `json:"transactions_full"`
				} `json:"actions"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
			require.Len(t, page.Actions, 50)
			rows := len(page.Actions)
			for _, a := range page.Actions {
				require.NotEmpty(t, a.TransactionsFull)
				rows += len(a.TransactionsFull)
			}
			require.LessOrEqual(t, rows, 1000)

			for _, q := range []string{"offset=10001", "offset=1000000000"} {
				rec = doRequest(f.h, http.MethodGet, "/api/v3/actions?"+q, "")
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, q)
				require.Contains(t, rec.Body.String(), "offset")
				require.Contains(t, rec.Body.String(), "cursor")
			}
			rec = doRequest(f.h, http.MethodGet, "/api/v3/actions?offset=10000", "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			// GraphQL shares the resolver: the same cap, the same field.
			rec = doRequest(f.h, http.MethodPost, "/graphql", `{"query":"{ actions(offset: 10001) { actions { action_id } } }"}`)
			require.Contains(t, rec.Body.String(), `"field":"offset"`)
		})
	}
}
