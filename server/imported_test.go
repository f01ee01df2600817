package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// importedAction is what the test reads of an action in a response.
type importedAction struct {
	ActionID string         `json:"action_id"`
	TraceID  string         `json:"trace_id"`
	TxHash   string         `json:"tx_hash"`
	Type     string         `json:"type"`
	StartLt  uint64         `json:"start_lt"`
	EndLt    uint64         `json:"end_lt"`
	Value    map[string]any `json:"value"`
	Accounts []string       `json:"accounts"`
}

type importedPage struct {
	Actions     []importedAction `json:"actions"`
	AddressBook map[string]struct {
		UserFriendly string `json:"user_friendly"`
	} `json:"address_book"`
}

// TestImportedFixturesThroughTheAPI imports every real fixture (7 blocks,
// the fee-replay block, 77 toncenter traces) and reads the actions back
// through /api/v3/actions and GraphQL, as a client would.
func TestImportedFixturesThroughTheAPI(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	files = append(files, traces...)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := importedFixtures(t, db, files)
			var stored int
			// Every top-level action: nested ones are hidden by default.
			require.NoError(t, st.DB().NewSelect().TableExpr("actions").ColumnExpr("count(*)").Where("ancestors = ''").Scan(ctx, &stored))

			f := &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})}
			all := pageThrough(t, f)
			require.GreaterOrEqual(t, len(all), 300, "several hundred actions expected from the fixtures")
			require.Len(t, all, stored, "paging must return every stored action exactly once")

			// A sample spread over the whole list, every type included.
			sample := map[string]importedAction{}
			for i, a := range all {
				if _, seen := sample[a.Type]; !seen || i%53 == 0 {
					sample[a.ActionID] = a
					sample[a.Type] = a
				}
			}
			checked := 0
			for key, a := range sample {
				if key != a.ActionID {
					continue
				}
				checked++
				for _, q := range filtersFinding(t, a) {
					require.True(t, findsAction(t, f, q, a.ActionID), "%s does not find %s", q.Encode(), a.ActionID)
				}
			}
			require.Greater(t, checked, 15)
			t.Logf("%d actions paged, %d of them found through every filter", len(all), checked)
		})
	}
}

// pageThrough reads every action, 100 a page, checking each page's address
// book: every user-friendly form decodes back to its raw key.
func pageThrough(t *testing.T, f *fixture) []importedAction {
	t.Helper()
	var all []importedAction
	seen := map[string]bool{}
	for offset := 0; ; offset += 100 {
		code, body := f.get(t, "include_accounts=true&limit=100&offset="+strconv.Itoa(offset))
		require.Equal(t, http.StatusOK, code, string(body))
		var page importedPage
		require.NoError(t, json.Unmarshal(body, &page))
		for raw, e := range page.AddressBook {
			back, err := chain.NormalizeAddress(e.UserFriendly)
			require.NoError(t, err, "%s: %s", raw, e.UserFriendly)
			require.Equal(t, raw, back, "user_friendly %s does not decode to its key", e.UserFriendly)
		}
		for _, a := range page.Actions {
			require.False(t, seen[a.ActionID], "action %s listed twice", a.ActionID)
			seen[a.ActionID] = true
			all = append(all, a)
		}
		if len(page.Actions) < 100 {
			return all
		}
	}
}

// filtersFinding lists one query per filter that must find the action: an
// account taking part (include_accounts lists them), its transaction,
// trace, the lt of its first transaction, and its type.
func filtersFinding(t *testing.T, a importedAction) []url.Values {
	t.Helper()
	require.NotEmpty(t, a.Accounts, "action %s (%s) has no account taking part", a.ActionID, a.Type)
	// Each query is narrowed to the action's own lt window: finding it in
	// that subset of the filter's answer shows the filter takes it, at the
	// cost of a short page instead of a thousand-row one.
	lt := strconv.FormatUint(a.StartLt, 10)
	q := func(k, v string) url.Values {
		return url.Values{k: {v}, "limit": {"1000"}, "start_lt": {lt}, "end_lt": {strconv.FormatUint(a.EndLt, 10)}}
	}
	// The first and the last account taking part (one query per account
	// of every sampled action made this test minutes long under -race).
	out := []url.Values{q("account", a.Accounts[0])}
	if len(a.Accounts) > 1 {
		out = append(out, q("account", a.Accounts[len(a.Accounts)-1]))
	}
	return append(out,
		q("tx_hash", a.TxHash),
		q("trace_id", a.TraceID),
		q("tx_lt", strconv.FormatUint(a.StartLt, 10)),
		q("action_type", a.Type),
	)
}

// findsAction pages through a query's answer (1000 a page) over REST and
// over GraphQL, which must agree page by page, and reports whether the
// action is in it.
func findsAction(t *testing.T, f *fixture, q url.Values, id string) bool {
	t.Helper()
	found := false
	for offset := 0; ; offset += 1000 {
		q.Set("offset", strconv.Itoa(offset))
		code, body := f.get(t, q.Encode())
		require.Equal(t, http.StatusOK, code, string(body))
		var page importedPage
		require.NoError(t, json.Unmarshal(body, &page))
		var gq struct {
			Data struct {
				Actions importedPage `json:"actions"`
			} `json:"data"`
			Errors []any `json:"errors"`
		}
		require.NoError(t, json.Unmarshal(f.graphql(t, allFields, graphqlVars(q)), &gq))
		require.Empty(t, gq.Errors)
		ids := actionIDs(page)
		if !slices.Equal(ids, actionIDs(gq.Data.Actions)) {
			t.Fatalf("GraphQL differs from REST for %s", q.Encode())
		}
		found = found || slices.Contains(ids, id)
		if len(ids) < 1000 {
			return found
		}
	}
}

func actionIDs(p importedPage) []string {
	ids := make([]string, 0, len(p.Actions))
	for _, a := range p.Actions {
		ids = append(ids, a.ActionID)
	}
	return ids
}
