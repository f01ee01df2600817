package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// tcTraceNotificationFields are the fields of toncenter's streaming v2
// TraceNotification (/work/tc-models/streaming-v2) we write besides
// actions, which is there only when the subscription's filters leave some
// (omitempty).
var tcTraceNotificationFields = []string{"address_book", "finality", "metadata", "trace", "trace_external_hash_norm", "transactions", "type"}

// traceActionsPage is /api/v3/actions?trace_id= (or toncenter's dialect of
// it) of one trace in page order, at most one page (as a trace event
// carries them); extra is more of the query string.
func traceActionsPage(t *testing.T, base, prefix, id, extra string) (actions []any, book, meta map[string]any) {
	t.Helper()
	resp, err := http.Get(base + prefix + "/api/v3/actions?sort=asc&limit=1000&trace_id=" + url.QueryEscape(id) + extra)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	var page struct {
		Actions     []any          `json:"actions"`
		AddressBook map[string]any `json:"address_book"`
		Metadata    map[string]any `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(b, &page))
	require.Less(t, len(page.Actions), 1000, "a trace of the fixtures fits one page")
	return page.Actions, page.AddressBook, page.Metadata
}

// union is the sorted keys of the maps.
func union(ms ...map[string]any) []string {
	all := map[string]any{}
	for _, m := range ms {
		maps.Copy(all, m)
	}
	return sortedKeys(all)
}

// Every trace of the imported fixtures stored complete is told once, on
// each protocol, to a stream watching an account of it, at the place it
// took in the commit that stored it complete; none of a trace without a
// watched account; a stream cut mid-way resumes by cursor with neither a
// gap nor a repeat; the trace is the one /api/v3/traces shows, its actions
// those /api/v3/actions?trace_id= shows (toncenter's dialect of them on
// toncenter's protocol, filtered by the subscription's action_types).
func TestStreamTraces(t *testing.T) {
	dir := testenv.FixturesDir(t)
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, traces)
	files := append([]string{testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")}, traces[:2]...)
	// and a trace with nested actions (the steps of an action of a type
	// newer than v1), for a client pinned to v1: found by importing every
	// trace file apart (each is named by its trace id, URL-safe).
	all := storetest.Open(t, testenv.Databases(t)[0].URL)
	importFiles(t, all, traces)
	var nestedTrace string
	require.NoError(t, all.DB().NewRaw(`SELECT trace_id FROM actions WHERE ancestors <> '' ORDER BY trace_id LIMIT 1`).Scan(t.Context(), &nestedTrace))
	nestedFile := filepath.Join(dir, "toncenter-traces", "traces", strings.NewReplacer("+", "-", "/", "_").Replace(nestedTrace)+".json")
	require.FileExists(t, nestedFile)
	files = append(files, nestedFile)
	scratch := storetest.Open(t, testenv.Databases(t)[0].URL)
	importFiles(t, scratch, files)
	var real []string
	require.NoError(t, scratch.DB().NewRaw(`SELECT account FROM transactions GROUP BY account ORDER BY count(*) DESC, account LIMIT 12`).
		Scan(t.Context(), &real))
	var nestedAccounts []string
	require.NoError(t, scratch.DB().NewRaw(`SELECT DISTINCT account FROM transactions WHERE trace_id = ? ORDER BY account`, nestedTrace).
		Scan(t.Context(), &nestedAccounts))
	for _, a := range nestedAccounts {
		if !slices.Contains(real, a) {
			real = append(real, a)
		}
	}
	watched := append([]string(nil), real...)
	for i := 0; i < 1000; i++ {
		watched = append(watched, fmt.Sprintf("0:%064X", uint64(0xfeed0000+i)))
	}

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			res := &resolvers.Resolver{Store: st}
			hub := startHub(t, st, res, notify.Options{Queue: 100_000})
			srv := streamServer(t, server.Options{Resolver: res})

			own, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched, "types": []string{"trace"}})
			require.Nil(t, refused)
			cut, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched, "types": []string{"trace", "actions"}})
			require.Nil(t, refused)
			tc := toncenterSSE(t, srv.URL, map[string]any{"addresses": watched, "types": []string{"trace"},
				"include_cursor": true, "include_address_book": true, "include_metadata": true})
			// action_types: each trace still, with only the actions of that
			// type (the scratch import says which type some watched traces
			// have and others not).
			var typed string
			require.NoError(t, scratch.DB().NewRaw(`SELECT a.type FROM actions AS a WHERE a.ancestors = '' AND EXISTS (
				SELECT 1 FROM transactions AS t WHERE t.trace_id = a.trace_id AND t.account IN (?))
				GROUP BY a.type ORDER BY count(DISTINCT a.trace_id) DESC, a.type LIMIT 1`, bun.In(real)).Scan(t.Context(), &typed))
			tcTyped := toncenterSSE(t, srv.URL, map[string]any{"addresses": watched, "types": []string{"trace"},
				"action_types": []string{typed}, "include_cursor": true})
			ws := dialGraphQL(t, srv.URL, "")
			gql := ws.subscribe(t, "s", `subscription($w: StreamWatch) { events(watch: $w) { cursor type finality trace_external_hash_norm
				trace { trace_id complete transactions_count external_hash_norm transactions { hash } } } }`,
				map[string]any{"w": map[string]any{"addresses": watched, "types": []string{"trace"}}})
			sock := dialToncenter(t, srv.URL)
			sockMsgs := subscribeToncenter(t, sock, map[string]any{"id": "s", "types": []string{"trace"}, "addresses": real,
				"supported_action_types": []string{"v1"}})
			require.Eventually(t, func() bool { return hub.Stats().Streams == 6 }, 20*time.Second, 5*time.Millisecond)

			importFiles(t, st, files)

			// What the tables say: the complete traces of the watched
			// accounts, each with its place; no incomplete trace has one.
			var rows []struct {
				ID  string `bun:"id"`
				Seq int64  `bun:"seq"`
			}
			require.NoError(t, st.DB().NewRaw(`SELECT id, seq FROM traces WHERE seq IS NOT NULL AND EXISTS (
				SELECT 1 FROM transactions AS t WHERE t.trace_id = traces.id AND t.account IN (?))`, bun.In(real)).Scan(t.Context(), &rows))
			require.NotEmpty(t, rows)
			want := map[string]uint64{}
			for _, r := range rows {
				want[r.ID] = uint64(r.Seq)
			}
			var unnumbered, others int
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM traces WHERE complete AND seq IS NULL`).Scan(t.Context(), &unnumbered))
			require.Zero(t, unnumbered, "every trace stored complete has a place")
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM traces WHERE NOT complete AND seq IS NOT NULL`).Scan(t.Context(), &others))
			require.Zero(t, others, "an incomplete trace has none")
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM traces WHERE seq IS NOT NULL`).Scan(t.Context(), &others))
			require.Greater(t, others, len(want), "some traces have no watched account")
			t.Logf("%d complete traces, %d of them of a watched account", others, len(want))

			// /api/v3/traces of one trace, as the stream should show it.
			v3 := func(id string) (trace map[string]any, book map[string]any) {
				t.Helper()
				resp, err := http.Get(srv.URL + "/api/v3/traces?trace_id=" + url.QueryEscape(id))
				require.NoError(t, err)
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
				var page struct {
					Traces      []map[string]any `json:"traces"`
					AddressBook map[string]any   `json:"address_book"`
				}
				require.NoError(t, json.Unmarshal(b, &page))
				require.Len(t, page.Traces, 1)
				return page.Traces[0], page.AddressBook
			}
			once := func(what string, got map[string]int) { t.Helper(); requireEachOnce(t, what, got, sortedKeys(want)) }

			// Ours: a /api/v3/traces page of the trace, named "trace", its
			// id the trace's place.
			var lastID string
			withActions := 0 // traces with actions, of those compared
			readOwn := func(s *sseStream, n int, got map[string]int, last *uint64, compare bool) {
				for i := 0; i < n; i++ {
					ev, ok := s.next(t, 30*time.Second)
					if !ok {
						t.Fatalf("%d of %d events came", i, n)
					}
					seq := cursorSeq(t, ev.ID)
					require.Greater(t, seq, *last, "cursor order")
					*last, lastID = seq, ev.ID
					if ev.Event != "trace" {
						n++ // an action of the mixed stream
						continue
					}
					var p struct {
						Traces      []map[string]any `json:"traces"`
						Actions     []any            `json:"actions"`
						AddressBook map[string]any   `json:"address_book"`
						Metadata    map[string]any   `json:"metadata"`
					}
					require.NoError(t, json.Unmarshal([]byte(ev.Data), &p), ev.Data)
					require.Len(t, p.Traces, 1)
					id := p.Traces[0]["trace_id"].(string)
					require.Equal(t, want[id], seq, "trace %s at its place", id)
					require.Equal(t, false, p.Traces[0]["is_incomplete"])
					require.NotNil(t, p.Actions, "actions is a list, empty or not")
					if compare {
						tr, book := v3(id)
						require.Equal(t, tr, p.Traces[0], "the trace as /api/v3/traces shows it")
						acts, actBook, meta := traceActionsPage(t, srv.URL, "", id, "")
						require.Equal(t, acts, p.Actions, "trace %s's actions as /api/v3/actions?trace_id= shows them", id)
						require.Equal(t, union(book, actBook), sortedKeys(p.AddressBook))
						for k, m := range meta {
							require.Equal(t, m, p.Metadata[k], "metadata of %s, a token of its actions", k)
						}
						withActions += min(len(acts), 1)
					}
					got[id]++
				}
			}
			got, last := map[string]int{}, uint64(0)
			readOwn(own, len(want), got, &last, true)
			once("trace", got)
			require.Positive(t, withActions, "some traces have actions")
			t.Logf("%d of %d watched traces have actions; action_types [%s] on toncenter's protocol", withActions, len(want), typed)

			got, last = map[string]int{}, 0
			readOwn(cut, len(want)/2, got, &last, false)
			cut.Close()
			resumed, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched,
				"types": []string{"trace", "actions"}, "after": lastID})
			require.Nil(t, refused)
			readOwn(resumed, len(want)-len(want)/2, got, &last, false)
			once("resumed trace", got)

			// toncenter's SSE: TraceNotification's fields, the trace's tree
			// and transactions as /api/v3/traces shows them.
			tcGot := map[string]int{}
			var docs []string
			for i := 0; i < len(want); i++ {
				ev, ok := tc.next(t, 60*time.Second)
				require.True(t, ok)
				var n map[string]json.RawMessage
				require.NoError(t, json.Unmarshal([]byte(ev.Data), &n))
				withCursor := append([]string{"cursor"}, tcTraceNotificationFields...)
				if _, ok := n["actions"]; ok {
					withCursor = append(withCursor, "actions")
				}
				sort.Strings(withCursor)
				require.Equal(t, withCursor, sortedKeys(n))
				require.JSONEq(t, `"trace"`, string(n["type"]))
				require.JSONEq(t, `"finalized"`, string(n["finality"]))
				seq := cursorSeq(t, mustString(t, n["cursor"]))
				var id string
				for k, s := range want {
					if s == seq {
						id = k
					}
				}
				require.NotEmpty(t, id, "no trace at %d", seq)
				tr, book := v3(id)
				var node, txs, gotBook any
				require.NoError(t, json.Unmarshal(n["trace"], &node))
				require.NoError(t, json.Unmarshal(n["transactions"], &txs))
				require.NoError(t, json.Unmarshal(n["address_book"], &gotBook))
				require.Equal(t, tr["trace"], node)
				require.Equal(t, tr["transactions"], txs)
				require.Equal(t, id, node.(map[string]any)["tx_hash"], "the root is the trace's first transaction")
				acts, actBook, _ := traceActionsPage(t, srv.URL, "/toncenter", id, "")
				requireTCActions(t, acts, n, id)
				require.Equal(t, union(book, actBook), sortedKeys(gotBook.(map[string]any)))
				var norm string
				require.NoError(t, json.Unmarshal(n["trace_external_hash_norm"], &norm))
				var stored *string
				require.NoError(t, st.DB().NewRaw(`SELECT hash_norm FROM messages WHERE tx_hash = ? AND direction = 'in'`, id).Scan(t.Context(), &stored))
				if stored == nil {
					require.Empty(t, norm)
				} else {
					require.Equal(t, *stored, norm)
				}
				tcGot[id]++
				delete(n, "cursor") // ours, not the model's
				b, _ := json.Marshal(n)
				docs = append(docs, string(b))
			}
			once("toncenter trace", tcGot)

			// action_types: the actions of that type only, none (no field)
			// in a trace without one.
			typedGot, some, none := map[string]int{}, 0, 0
			for i := 0; i < len(want); i++ {
				ev, ok := tcTyped.next(t, 60*time.Second)
				require.True(t, ok)
				var n map[string]json.RawMessage
				require.NoError(t, json.Unmarshal([]byte(ev.Data), &n))
				seq := cursorSeq(t, mustString(t, n["cursor"]))
				var node map[string]any
				require.NoError(t, json.Unmarshal(n["trace"], &node))
				id := node["tx_hash"].(string)
				require.Equal(t, want[id], seq)
				acts, _, _ := traceActionsPage(t, srv.URL, "/toncenter", id, "&action_type="+url.QueryEscape(typed))
				requireTCActions(t, acts, n, id)
				if len(acts) > 0 {
					some++
				} else {
					none++
				}
				typedGot[id]++
				delete(n, "cursor")
				b, _ := json.Marshal(n)
				docs = append(docs, string(b))
			}
			once("toncenter trace with action_types", typedGot)
			require.Positive(t, some, "a trace with a %s action", typed)
			require.Positive(t, none, "a trace without a %s action", typed)
			checkTCShape(t, "TraceNotification", docs)

			// Its websocket: the same, without the cursor, address book
			// and metadata (not asked for), the actions those of a client
			// pinned to toncenter's first action types: the steps of a
			// newer type's action instead of it (nested actions).
			var nested int
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM actions AS a WHERE a.ancestors <> '' AND EXISTS (
				SELECT 1 FROM transactions AS t WHERE t.trace_id = a.trace_id AND t.account IN (?))`, bun.In(real)).Scan(t.Context(), &nested))
			require.Positive(t, nested, "the watched traces have nested actions")
			t.Logf("%d nested actions in the watched traces", nested)
			sockGot := map[string]int{}
			for i := 0; i < len(want); i++ {
				m := recvSocket(t, sockMsgs)
				id := m["trace"].(map[string]any)["tx_hash"].(string)
				keys := []string{"finality", "trace", "trace_external_hash_norm", "transactions", "type"}
				acts, _, _ := traceActionsPage(t, srv.URL, "/toncenter", id, "&supported_action_types=v1")
				if len(acts) > 0 {
					keys = append([]string{"actions"}, keys...)
					require.Equal(t, acts, m["actions"], "trace %s's actions on the websocket", id)
				}
				require.Equal(t, keys, sortedKeys(m), m)
				require.Equal(t, "trace", m["type"])
				sockGot[id]++
			}
			once("websocket trace", sockGot)
			requireNoMore(t, sockMsgs, "traces")

			// GraphQL: each trace once, at its place, with its transactions.
			gqlGot := map[string]int{}
			for i := 0; i < len(want); i++ {
				select {
				case m := <-gql:
					require.Equal(t, "next", m.Type, string(m.Payload))
					var ev struct {
						Data struct {
							Events struct {
								Cursor, Type, Finality string
								Trace                  struct {
									TraceID           string `json:"trace_id"`
									Complete          bool
									TransactionsCount int `json:"transactions_count"`
									Transactions      []struct{ Hash string }
								}
							}
						}
					}
					require.NoError(t, json.Unmarshal(m.Payload, &ev))
					e := ev.Data.Events
					require.Equal(t, "trace", e.Type)
					require.Equal(t, "finalized", e.Finality)
					require.True(t, e.Trace.Complete)
					require.Equal(t, want[e.Trace.TraceID], cursorSeq(t, e.Cursor))
					require.Len(t, e.Trace.Transactions, e.Trace.TransactionsCount)
					gqlGot[e.Trace.TraceID]++
				case <-time.After(60 * time.Second):
					t.Fatal("no GraphQL event")
				}
			}
			once("GraphQL trace", gqlGot)

			// A second import stores nothing new: no trace is told again.
			importFiles(t, st, files)
			var again int
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM traces WHERE seq IS NOT NULL`).Scan(t.Context(), &again))
			require.Equal(t, others, again)
			replay, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched,
				"types": []string{"trace"}, "after": resolvers.EncodeStreamCursor(0)})
			require.Nil(t, refused)
			got, last = map[string]int{}, 0
			readOwn(replay, len(want), got, &last, false)
			once("replayed trace", got)
		})
	}
}

// requireTCActions checks a TraceNotification's actions against toncenter's
// dialect of /api/v3/actions for its trace with the same filters: the same
// list, and no actions field when it is empty (toncenter omits it).
func requireTCActions(t *testing.T, want []any, n map[string]json.RawMessage, id string) {
	t.Helper()
	raw, ok := n["actions"]
	if len(want) == 0 {
		require.False(t, ok, "trace %s: no actions field when none pass, got %s", id, raw)
		return
	}
	require.True(t, ok, "trace %s has actions", id)
	var got []any
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Equal(t, want, got, "trace %s's actions as toncenter's dialect shows them", id)
}
