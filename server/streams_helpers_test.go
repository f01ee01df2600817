package server_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// allFixtureFiles lists every importable mainnet fixture: the 7 blocks,
// the fee-replay block and the 77 toncenter traces.
func allFixtureFiles(t testing.TB) []string {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	return append(files, traces...)
}

// loadedWait bounds a wait for something the test caused (a stream
// opened, an event sent): a deadline, not a delay, as every such wait
// ends when its condition holds. It is generous because a shared 2-core
// machine at load 15 running -race takes many times longer than a quiet
// one, and a stream test's failure must mean a lost event, not a busy
// machine.
const loadedWait = 5 * time.Minute

// startHub starts a hub on st for the test's lifetime.
func startHub(t testing.TB, st *store.Store, res *resolvers.Resolver, o notify.Options) *notify.Hub {
	t.Helper()
	o.Store, o.Book = st, res.AddressBookAndMetadata
	hub, err := notify.Start(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(hub.Close)
	res.Notify = hub
	return hub
}

// streamServer serves the whole handler on a loopback port (streams need
// a real connection: flushing, hijacking, client disconnects).
func streamServer(t testing.TB, o server.Options) *httptest.Server {
	t.Helper()
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 2 * time.Second // streams must outlive it
	}
	srv := httptest.NewUnstartedServer(newServer(t, o))
	srv.Config.ConnContext = server.ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// sseEvent is one event as a client parses it.
type sseEvent struct {
	ID, Event, Data string
	At              time.Time
}

// sseStream reads a stream's events in the background.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent
	mu     sync.Mutex
	lastID string // the id a browser would send back (ids without data count too)
}

// openSSE opens path (with its query) and returns the stream, or the
// response when the server refused it.
func openSSE(t testing.TB, base, path, lastID string) (*sseStream, *http.Response) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		return nil, resp
	}
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	s := &sseStream{resp: resp, events: make(chan sseEvent, 100_000), lastID: lastID}
	t.Cleanup(func() { resp.Body.Close() })
	go s.read()
	return s, nil
}

func (s *sseStream) read() {
	defer close(s.events)
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var ev sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if ev.ID != "" {
				s.mu.Lock()
				s.lastID = ev.ID
				s.mu.Unlock()
			}
			if len(data) > 0 {
				ev.Data, ev.At = strings.Join(data, "\n"), time.Now()
				s.events <- ev
			}
			ev, data = sseEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Event = value
		case "data":
			data = append(data, value)
		}
	}
}

func (s *sseStream) LastID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

func (s *sseStream) Close() { s.resp.Body.Close() }

// next waits for the next event; ok is false when the stream closed.
func (s *sseStream) next(t testing.TB, within time.Duration) (sseEvent, bool) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(within):
		t.Fatalf("no event within %s", within)
		return sseEvent{}, false
	}
}

// streamedAction is an event's data: a /api/v3/actions page of one action.
type streamedAction struct {
	Actions     []map[string]any          `json:"actions"`
	AddressBook map[string]map[string]any `json:"address_book"`
}

func parseStreamed(t testing.TB, data string) streamedAction {
	t.Helper()
	var p streamedAction
	require.NoError(t, json.Unmarshal([]byte(data), &p), data)
	require.Len(t, p.Actions, 1, data)
	return p
}

// cursorSeq reads the seq out of a stream cursor (the test knows its shape).
func cursorSeq(t testing.TB, c string) uint64 {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(c)
	require.NoError(t, err)
	n, err := strconv.ParseUint(strings.TrimPrefix(string(b), "seq:"), 10, 64)
	require.NoError(t, err, string(b))
	return n
}

// restActions pages through GET /api/v3/actions with the filter, oldest
// first, and returns the actions by id and the merged address book.
func restActions(t testing.TB, base, query string) (map[string]map[string]any, []string, map[string]map[string]any) {
	t.Helper()
	byID := map[string]map[string]any{}
	var order []string
	book := map[string]map[string]any{}
	for offset := 0; ; offset += 1000 {
		resp, err := http.Get(base + "/api/v3/actions?" + query + "&sort=asc&limit=1000&offset=" + strconv.Itoa(offset))
		require.NoError(t, err)
		var page streamedAction
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
		resp.Body.Close()
		for _, a := range page.Actions {
			id := a["action_id"].(string)
			byID[id] = a
			order = append(order, id)
		}
		for k, v := range page.AddressBook {
			book[k] = v
		}
		if len(page.Actions) < 1000 {
			return byID, order, book
		}
	}
}

// gqlSocket is a graphql-transport-ws client, as graphql-ws speaks it.
type gqlSocket struct {
	conn *websocket.Conn
	mu   sync.Mutex
	subs map[string]chan gqlMessage
}

type gqlMessage struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func dialGraphQL(t testing.TB, base, prefix string) *gqlSocket {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Scheme = "ws"
	u.Path = prefix + "/graphql"
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, resp, err := d.Dial(u.String(), nil)
	require.NoError(t, err)
	require.Equal(t, "graphql-transport-ws", resp.Header.Get("Sec-Websocket-Protocol"))
	s := &gqlSocket{conn: conn, subs: map[string]chan gqlMessage{}}
	t.Cleanup(func() { conn.Close() })
	require.NoError(t, conn.WriteJSON(gqlMessage{Type: "connection_init"}))
	var ack gqlMessage
	require.NoError(t, conn.ReadJSON(&ack))
	require.Equal(t, "connection_ack", ack.Type)
	go s.read()
	return s
}

func (s *gqlSocket) read() {
	defer func() {
		s.mu.Lock()
		for _, ch := range s.subs {
			close(ch)
		}
		s.subs = nil
		s.mu.Unlock()
	}()
	for {
		var m gqlMessage
		if err := s.conn.ReadJSON(&m); err != nil {
			return
		}
		switch m.Type {
		case "ping":
			s.mu.Lock()
			_ = s.conn.WriteJSON(gqlMessage{Type: "pong"})
			s.mu.Unlock()
		case "next", "error", "complete":
			s.mu.Lock()
			ch := s.subs[m.ID]
			s.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

// subscribe starts an operation; its messages (next, error, complete)
// arrive on the channel.
func (s *gqlSocket) subscribe(t testing.TB, id, query string, vars map[string]any) <-chan gqlMessage {
	t.Helper()
	ch := make(chan gqlMessage, 100_000)
	payload, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	s.mu.Lock()
	s.subs[id] = ch
	err = s.conn.WriteJSON(gqlMessage{Type: "subscribe", ID: id, Payload: payload})
	s.mu.Unlock()
	require.NoError(t, err)
	return ch
}

// restActionFields selects every field of Action that /api/v3/actions shows.
const restActionFields = `action_id trace_id tx_hash type status title description value start_lt start_utime end_lt end_utime
	transactions trace_end_lt trace_end_utime trace_external_hash_norm mc_seqno accounts`

const subscribeActions = `subscription($f: ActionFilter, $after: String) {
	actions(filter: $f, after: $after) { cursor action { ` + restActionFields + ` } address_book }
}`

// gqlEvent is a next message's data.
type gqlEvent struct {
	Data struct {
		Actions struct {
			Cursor      string                    `json:"cursor"`
			Action      map[string]any            `json:"action"`
			AddressBook map[string]map[string]any `json:"address_book"`
		} `json:"actions"`
	} `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// toncenterSSE opens toncenter's streaming v2 SSE with body and reads its
// `connected` hello.
func toncenterSSE(t testing.TB, base string, body map[string]any) *sseStream {
	t.Helper()
	s, refused := postSSE(t, base, "/api/streaming/v2/sse", body)
	require.Nil(t, refused)
	hello, ok := s.next(t, loadedWait)
	require.True(t, ok)
	require.Equal(t, "connected", hello.Event)
	return s
}

// requireEachOnce checks that every key of got was counted once and that
// the keys are want's.
func requireEachOnce(t testing.TB, what string, got map[string]int, want []string) {
	t.Helper()
	for k, n := range got {
		require.Equal(t, 1, n, "%s %s told %d times", what, k, n)
	}
	require.ElementsMatch(t, want, slices.Collect(maps.Keys(got)), what)
}

// nextTCNotification reads the next event of a toncenter SSE stream opened
// with include_cursor and checks that its members are fields plus
// "cursor", its type typ and its finality "finalized".
func nextTCNotification(t testing.TB, tc *sseStream, typ string, fields []string) map[string]json.RawMessage {
	t.Helper()
	ev, ok := tc.next(t, 60*time.Second)
	require.True(t, ok)
	var n map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(ev.Data), &n))
	withCursor := append([]string{"cursor"}, fields...)
	sort.Strings(withCursor)
	require.Equal(t, withCursor, sortedKeys(n))
	require.JSONEq(t, strconv.Quote(typ), string(n["type"]))
	require.JSONEq(t, `"finalized"`, string(n["finality"]))
	return n
}
