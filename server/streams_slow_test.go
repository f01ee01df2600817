package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// slowStall is the stall time of these tests' hubs.
const slowStall = time.Second

// slowEnv is a server whose store holds every block fixture's actions
// (1,430 of them, a few MB as events: far more than the sockets hold).
func slowEnv(t *testing.T, o notify.Options) (*store.Store, *notify.Hub, string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	require.NotEmpty(t, files)
	st := importedFixtures(t, testenv.Databases(t)[0], files)
	res := &resolvers.Resolver{Store: st}
	if o.Stall == 0 {
		o.Stall = slowStall
	}
	hub := startHub(t, st, res, o)
	return st, hub, streamServer(t, server.Options{Resolver: res}).URL
}

// dialNotReading connects with a small receive buffer: a client that then
// reads nothing stops the server's writes after a few KB.
func dialNotReading(t *testing.T, base string) net.Conn {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// visibleActions counts what an unfiltered stream sends in all.
func visibleActions(t *testing.T, base string) int {
	t.Helper()
	all, _, _ := restActions(t, base, "")
	require.Greater(t, len(all), 1000)
	return len(all)
}

// A client that resumes from the start and then reads nothing is cut once
// it has taken nothing for the stall time: counted as cut for slowness, its
// place freed, and when it reads again it finds what had reached its
// socket, then the documented last event (503, "read too slowly") with the
// cursor of the last event it got; resuming from there brings the rest,
// without a gap or a repeat. (Before: the server kept writing into the
// socket until a 20 s write deadline broke the connection, with no event,
// and the cut was not counted.)
func TestStreamNotReadingIsCutWithEndEvent(t *testing.T) {
	_, hub, base := slowEnv(t, notify.Options{})
	total := visibleActions(t, base)
	conn := dialNotReading(t, base)
	_, err := fmt.Fprintf(conn, "GET /api/v3/actions/stream?after=%s HTTP/1.1\r\nHost: tonql\r\n\r\n", resolvers.EncodeStreamCursor(0))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return hub.Stats().CutSlow == 1 }, 30*time.Second, 5*time.Millisecond,
		"a stream that took nothing is cut as too slow")
	require.Equal(t, 0, hub.Stats().Streams, "its place is free at once")

	// The client reads again: what reached its socket, then the end event.
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	s := &sseStream{resp: resp, events: make(chan sseEvent, 100_000)}
	go s.read()
	var got []sseEvent
	for ev := range s.events {
		got = append(got, ev)
	}
	require.NotEmpty(t, got)
	end := got[len(got)-1]
	got = got[:len(got)-1]
	require.Equal(t, "end", end.Event, "the last event says why the stream ended")
	var body struct {
		Error  string `json:"error"`
		Code   int    `json:"code"`
		Cursor string `json:"cursor"`
	}
	require.NoError(t, json.Unmarshal([]byte(end.Data), &body), end.Data)
	require.Equal(t, http.StatusServiceUnavailable, body.Code)
	require.Contains(t, body.Error, "read too slowly")
	require.Equal(t, end.ID, body.Cursor)
	require.Less(t, len(got), total, "the stream was cut before the end of the replay")
	seen := map[string]bool{}
	for _, ev := range got {
		seen[parseStreamed(t, ev.Data).Actions[0]["action_id"].(string)] = true
	}
	if len(got) > 0 {
		require.Equal(t, got[len(got)-1].ID, body.Cursor, "the cursor is the last event the client got")
	}

	// Resuming from the cursor brings the rest.
	again, refused := openSSE(t, base, "/api/v3/actions/stream", body.Cursor)
	require.Nil(t, refused)
	for range total - len(got) {
		ev, ok := again.next(t, 30*time.Second)
		require.True(t, ok)
		id := parseStreamed(t, ev.Data).Actions[0]["action_id"].(string)
		require.False(t, seen[id], "told twice: %s", id)
		seen[id] = true
	}
	require.Len(t, seen, total)
	t.Logf("cut after %d of %d events; the resume brought the other %d", len(got), total, total-len(got))
}

// The same over a GraphQL subscription on a websocket: a client that reads
// nothing is cut as too slow (counted, place freed) and, reading again,
// finds the subscription's error with the code and cursor, then completes.
// (Before: nothing cut it; the socket stayed blocked until the client left.)
func TestSubscriptionNotReadingIsCut(t *testing.T) {
	_, hub, base := slowEnv(t, notify.Options{})
	total := visibleActions(t, base)
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Scheme, u.Path = "ws", "/graphql"
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, ReadBufferSize: 1024,
		NetDial: func(network, addr string) (net.Conn, error) { return dialNotReading(t, base), nil }}
	conn, _, err := d.Dial(u.String(), nil)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.WriteJSON(gqlMessage{Type: "connection_init"}))
	var ack gqlMessage
	require.NoError(t, conn.ReadJSON(&ack))
	require.Equal(t, "connection_ack", ack.Type)
	payload, _ := json.Marshal(map[string]any{"query": subscribeActions, "variables": map[string]any{"after": resolvers.EncodeStreamCursor(0)}})
	require.NoError(t, conn.WriteJSON(gqlMessage{Type: "subscribe", ID: "1", Payload: payload}))

	require.Eventually(t, func() bool { return hub.Stats().CutSlow == 1 }, 30*time.Second, 5*time.Millisecond,
		"a subscription that took nothing is cut as too slow")
	require.Equal(t, 0, hub.Stats().Streams)

	var events int
	var last string
	for {
		var m gqlMessage
		require.NoError(t, conn.ReadJSON(&m))
		if m.Type == "ping" {
			continue
		}
		require.Equal(t, "1", m.ID)
		if m.Type == "next" {
			var ev gqlEvent
			require.NoError(t, json.Unmarshal(m.Payload, &ev))
			last = ev.Data.Actions.Cursor
			events++
			continue
		}
		require.Equal(t, "error", m.Type, string(m.Payload))
		var errs []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		}
		require.NoError(t, json.Unmarshal(m.Payload, &errs))
		require.Len(t, errs, 1)
		require.Contains(t, errs[0].Message, "read too slowly")
		require.Equal(t, "UNAVAILABLE", errs[0].Extensions["code"])
		if events > 0 {
			require.Equal(t, last, errs[0].Extensions["cursor"], "the cursor is the last event the client got")
		}
		break
	}
	require.Less(t, events, total)
	t.Logf("cut after %d of %d events", events, total)

	// The socket outlives the cut (its writes were bounded only until the
	// error was written): later, a subscription on it resumes from the cursor.
	time.Sleep(2 * slowStall)
	if last == "" {
		last = resolvers.EncodeStreamCursor(0)
	}
	payload, _ = json.Marshal(map[string]any{"query": subscribeActions, "variables": map[string]any{"after": last}})
	require.NoError(t, conn.WriteJSON(gqlMessage{Type: "subscribe", ID: "2", Payload: payload}))
	for {
		var m gqlMessage
		require.NoError(t, conn.ReadJSON(&m))
		if m.Type == "ping" || m.ID == "1" {
			continue
		}
		require.Equal(t, "next", m.Type, string(m.Payload))
		var ev gqlEvent
		require.NoError(t, json.Unmarshal(m.Payload, &ev))
		require.Greater(t, cursorSeq(t, ev.Data.Actions.Cursor), cursorSeq(t, last))
		break
	}
}

// Streams opened without a key count against their client address's own
// limit (MAX_STREAMS_PER_ADDRESS), over SSE and GraphQL alike, so one
// address cannot take the server's whole MAX_STREAMS. (Before: bare
// streams counted only against MAX_STREAMS.)
func TestKeylessStreamsPerAddress(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	res := &resolvers.Resolver{Store: st}
	hub := startHub(t, st, res, notify.Options{MaxStreamsPerAddress: 2, MaxStreams: 100})
	base := streamServer(t, server.Options{Resolver: res}).URL
	first, refused := openSSE(t, base, "/api/v3/actions/stream", "")
	require.Nil(t, refused)
	ws := dialGraphQL(t, base, "")
	ws.subscribe(t, "1", subscribeActions, nil)
	require.Eventually(t, func() bool { return hub.Stats().Streams == 2 }, 10*time.Second, 5*time.Millisecond)

	_, refused = openSSE(t, base, "/api/v3/actions/stream", "")
	require.NotNil(t, refused)
	requireEnvelope(t, refused, http.StatusTooManyRequests, "MAX_STREAMS_PER_ADDRESS")
	m := <-ws.subscribe(t, "2", subscribeActions, nil)
	require.Contains(t, string(m.Payload), `"code":"RATE_LIMITED"`)
	require.Contains(t, string(m.Payload), "MAX_STREAMS_PER_ADDRESS")

	// A closed stream frees its place.
	first.Close()
	require.Eventually(t, func() bool { return hub.Stats().Streams == 1 }, 10*time.Second, 5*time.Millisecond)
	_, refused = openSSE(t, base, "/api/v3/actions/stream", "")
	require.Nil(t, refused)
}
