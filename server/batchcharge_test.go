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

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
)

// Defect 13: a JSON-RPC batch of 100 calls (1.1 s of emulation when
// uncached) cost one unit and one rate-limit token. Each call now costs a
// unit and a token; a batch is admitted like any request and leaves the
// bucket in debt, so the key's next requests wait until it refilled. With
// the per-process limiter and with the one shared through Redis.
func TestJSONRPCBatchChargedPerCall(t *testing.T) {
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
			call := `{"jsonrpc":"2.0","id":1,"method":"getNothing"}`
			batch := "[" + strings.TrimSuffix(strings.Repeat(call+",", 10), ",") + "]"
			rec := doRequest(h, http.MethodPost, "/"+key+"/api/v2/jsonRPC", batch)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			// 5 tokens - 10 calls: 5 in debt; 6 s until the next token.
			for _, wait := range []time.Duration{0, 3 * time.Second, 2 * time.Second} {
				clk.Add(wait)
				rec = doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions", "")
				require.Equal(t, http.StatusTooManyRequests, rec.Code, "after %s", wait)
			}
			clk.Add(time.Second)
			rec = doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions", "")
			require.Equal(t, http.StatusOK, rec.Code)
			require.NoError(t, m.Flush(t.Context()))
			require.EqualValues(t, 11, e.units(t, key), "ten calls and one request; refusals cost nothing")
		})
	}
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
