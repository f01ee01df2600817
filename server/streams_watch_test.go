package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// postSSE opens a stream whose parameters are a JSON body.
func postSSE(t testing.TB, base, path string, body any) (*sseStream, *http.Response) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post(base+path, "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		return nil, resp
	}
	s := &sseStream{resp: resp, events: make(chan sseEvent, 100_000)}
	t.Cleanup(func() { resp.Body.Close() })
	go s.read()
	return s, nil
}

// tcActionsNotificationFields are the members of toncenter's streaming v2
// ActionsNotification (type, finality, trace_external_hash_norm, actions;
// address_book and metadata when asked for).
var tcActionsNotificationFields = []string{"actions", "address_book", "finality", "metadata", "trace_external_hash_norm", "type"}

// A watch set of two addresses, given as a POST body to our stream, as
// toncenter's streaming v2 subscription, and as a GraphQL subscription's
// watch, gets during an import exactly the actions the REST pages of the
// two accounts list, each once; toncenter's events have its fields.
func TestStreamWatchSets(t *testing.T) {
	files := allFixtureFiles(t)
	// Two busy accounts, learned from a scratch import.
	scratch := importedFixtures(t, testenv.Databases(t)[0], files)
	var busy []string
	require.NoError(t, scratch.DB().NewRaw(`SELECT account FROM action_accounts GROUP BY account ORDER BY count(*) DESC, account LIMIT 2 OFFSET 3`).Scan(t.Context(), &busy))
	require.Len(t, busy, 2)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			res := &resolvers.Resolver{Store: st}
			hub := startHub(t, st, res, notify.Options{Queue: 100_000})
			srv := streamServer(t, server.Options{Resolver: res})

			own, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": busy, "types": []string{"actions"}, "min_finality": "pending"})
			require.Nil(t, refused)
			tc, refused := postSSE(t, srv.URL, "/api/streaming/v2/sse", map[string]any{"id": "7", "addresses": busy, "types": []string{"actions"},
				"min_finality": "finalized", "include_address_book": true, "include_metadata": true, "supported_action_types": []string{"latest"}})
			require.Nil(t, refused)
			hello, ok := tc.next(t, loadedWait)
			require.True(t, ok)
			require.Equal(t, "connected", hello.Event)
			require.JSONEq(t, `{"id":"7","status":"subscribed"}`, hello.Data)
			ws := dialGraphQL(t, srv.URL, "")
			gql := ws.subscribe(t, "w", `subscription($w: StreamWatch) { actions(watch: $w, filter: {supported_action_types: ["latest"]}) { cursor action { action_id } } }`,
				map[string]any{"w": map[string]any{"addresses": busy}})
			require.Eventually(t, func() bool { return hub.Stats().Streams == 3 }, loadedWait, 5*time.Millisecond)

			importFiles(t, st, files)

			want := map[string]bool{}
			for _, a := range busy {
				page, _, _ := restActions(t, srv.URL, "account="+a+"&supported_action_types=latest")
				for id := range page {
					want[id] = true
				}
			}
			require.NotEmpty(t, want)
			ids := func(next func() string) []string {
				var out []string
				for len(out) < len(want) {
					out = append(out, next())
				}
				return out
			}
			wantIDs := make([]string, 0, len(want))
			for id := range want {
				wantIDs = append(wantIDs, id)
			}
			sort.Strings(wantIDs)

			gotOwn := ids(func() string {
				ev, ok := own.next(t, loadedWait)
				require.True(t, ok)
				return parseStreamed(t, ev.Data).Actions[0]["action_id"].(string)
			})
			require.ElementsMatch(t, wantIDs, gotOwn, "our stream")

			gotTC := ids(func() string {
				ev, ok := tc.next(t, loadedWait)
				require.True(t, ok)
				require.Equal(t, "event", ev.Event)
				require.NotEmpty(t, ev.ID, "our resume cursor")
				var n map[string]json.RawMessage
				require.NoError(t, json.Unmarshal([]byte(ev.Data), &n))
				var keys []string
				for k := range n {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				require.Equal(t, tcActionsNotificationFields, keys)
				require.JSONEq(t, `"actions"`, string(n["type"]))
				require.JSONEq(t, `"finalized"`, string(n["finality"]))
				var actions []map[string]any
				require.NoError(t, json.Unmarshal(n["actions"], &actions))
				require.Len(t, actions, 1)
				return actions[0]["action_id"].(string)
			})
			require.ElementsMatch(t, wantIDs, gotTC, "toncenter's stream")

			gotGQL := ids(func() string {
				select {
				case m := <-gql:
					var ev struct {
						Data struct {
							Actions struct {
								Action struct {
									ActionID string `json:"action_id"`
								} `json:"action"`
							} `json:"actions"`
						} `json:"data"`
					}
					require.Equal(t, "next", m.Type, string(m.Payload))
					require.NoError(t, json.Unmarshal(m.Payload, &ev))
					return ev.Data.Actions.Action.ActionID
				case <-time.After(loadedWait):
					t.Fatal("no GraphQL event")
					return ""
				}
			})
			require.ElementsMatch(t, wantIDs, gotGQL, "GraphQL")
		})
	}
}

// Bad watch input is refused before a stream starts, naming the field:
// an oversized set, unknown event types, bad finality names, malformed
// bodies, on our route (v3 envelope) and toncenter's ({id, error}).
func TestStreamWatchErrors(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	res := &resolvers.Resolver{Store: st}
	startHub(t, st, res, notify.Options{MaxWatch: 3})
	srv := streamServer(t, server.Options{Resolver: res})
	addr := "0:" + strings.Repeat("AB", 32)
	four := []string{addr, "0:" + strings.Repeat("CD", 32), "0:" + strings.Repeat("EF", 32), "0:" + strings.Repeat("12", 32)}
	for q, field := range map[string]string{
		"types=nope":                           "types",
		"types=jetton_change":                  "types", // jettons_change is the name
		"types=actions,gossip":                 "types",
		"min_finality=soon":                    "min_finality",
		"min_finality=a&min_finality=b":        "min_finality",
		"addresses=xyz":                        "addresses",
		"trace_external_hash_norms=zz":         "trace_external_hash_norms",
		"addresses=" + strings.Join(four, ","): "addresses",
	} {
		resp, err := http.Get(srv.URL + "/api/v3/actions/stream?" + q)
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, q)
		require.True(t, strings.HasPrefix(body["error"].(string), field), "%s: %v", q, body["error"])
	}
	for _, c := range []struct {
		body   any
		status int
		field  string
	}{
		{map[string]any{"addresses": four}, 422, "addresses"},
		{map[string]any{"addresses": map[string]any{"a": 1}}, 422, "addresses"},
		{map[string]any{"types": []string{"jettons_change", "jettons"}}, 422, "types"},
		{"not an object", 400, "body"},
	} {
		_, resp := postSSE(t, srv.URL, "/api/v3/actions/stream", c.body)
		require.NotNil(t, resp, c.body)
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		require.Equal(t, c.status, resp.StatusCode, c.body)
		require.True(t, strings.HasPrefix(body["error"].(string), c.field), "%v: %v", c.body, body["error"])
	}
	for _, c := range []struct {
		body   any
		status int
		field  string
	}{
		{map[string]any{"id": "1", "addresses": []string{addr}}, 422, "types"},
		{map[string]any{"id": "2", "types": []string{"actions"}}, 422, "addresses"},
		{map[string]any{"id": "3", "types": []string{"bogus"}, "addresses": []string{addr}}, 422, "types"},
		{map[string]any{"id": "4", "types": []string{"actions"}, "addresses": []string{addr}, "min_finality": "final"}, 422, "min_finality"},
		{map[string]any{"id": "5", "types": []string{"actions"}, "addresses": four}, 422, "addresses"},
		{map[string]any{"id": "6", "types": []string{"actions"}, "addresses": []string{"nope"}}, 422, "addresses"},
		{[]int{1}, 400, "body"},
	} {
		_, resp := postSSE(t, srv.URL, "/api/streaming/v2/sse", c.body)
		require.NotNil(t, resp, c.body)
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		require.Equal(t, c.status, resp.StatusCode, c.body)
		require.True(t, strings.HasPrefix(body["error"].(string), c.field), "%v: %v", c.body, body["error"])
		if m, ok := c.body.(map[string]any); ok {
			require.Equal(t, m["id"], body["id"], "toncenter's error echoes the id")
		}
	}
}
