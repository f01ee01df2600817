package server_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

func dialToncenter(t testing.TB, base string) *websocket.Conn {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Scheme, u.Path = "ws", "/api/streaming/v2/ws"
	conn, _, err := websocket.DefaultDialer.Dial(u.String(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

func readJSON(t testing.TB, c *websocket.Conn) map[string]any {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(loadedWait)))
	var m map[string]any
	require.NoError(t, c.ReadJSON(&m))
	return m
}

// toncenter's streaming v2 websocket: malformed messages, unknown
// operations, missing and bad fields each get an error naming the field
// (with the message's id); ping gets pong; a subscription gets the watched
// accounts' actions during an import, each once, in ActionsNotification
// shape; unsubscribing one of two addresses goes on with the other alone.
func TestToncenterSocket(t *testing.T) {
	files := allFixtureFiles(t)
	scratch := importedFixtures(t, testenv.Databases(t)[0], files)
	var busy []string
	require.NoError(t, scratch.DB().NewRaw(`SELECT account FROM action_accounts GROUP BY account ORDER BY count(*) DESC, account LIMIT 2 OFFSET 3`).Scan(t.Context(), &busy))
	half := len(files) / 2

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			res := &resolvers.Resolver{Store: st}
			hub := startHub(t, st, res, notify.Options{Queue: 100_000, MaxWatch: 5})
			srv := streamServer(t, server.Options{Resolver: res})
			c := dialToncenter(t, srv.URL)

			six := []string{busy[0], busy[1], "0:" + strings.Repeat("AB", 32), "0:" + strings.Repeat("CD", 32), "0:" + strings.Repeat("EF", 32), "0:" + strings.Repeat("12", 32)}
			for _, m := range []struct{ msg, field string }{
				{`not json`, "message"},
				{`{"id":"1"}`, "operation"},
				{`{"id":"2","operation":"dance"}`, "operation"},
				{`{"id":"3","operation":"subscribe","addresses":["` + busy[0] + `"]}`, "types"},
				{`{"id":"4","operation":"subscribe","types":["actions"]}`, "addresses"},
				{`{"id":"5","operation":"subscribe","types":["nope"],"addresses":["` + busy[0] + `"]}`, "types"},
				{`{"id":"6","operation":"subscribe","types":["actions"],"addresses":["` + busy[0] + `"],"min_finality":"soon"}`, "min_finality"},
				{`{"id":"7","operation":"subscribe","types":["actions"],"addresses":["xyz"]}`, "addresses"},
				{`{"id":"8","operation":"subscribe","types":["actions"],"addresses":` + mustJSON(six) + `}`, "addresses"},
				{`{"id":"9","operation":"unsubscribe"}`, "addresses"},
				{`{"id":"10","operation":"subscribe","types":"actions"}`, "types"},
				{`{"id":"11","operation":"unsubscribe","addresses":[1]}`, "addresses"},
			} {
				require.NoError(t, c.WriteMessage(websocket.TextMessage, []byte(m.msg)))
				got := readJSON(t, c)
				require.True(t, strings.HasPrefix(got["error"].(string), m.field), "%s: %v", m.msg, got)
				var sent map[string]any
				if json.Unmarshal([]byte(m.msg), &sent) == nil {
					require.Equal(t, sent["id"], got["id"], m.msg)
				}
			}
			require.NoError(t, c.WriteMessage(websocket.TextMessage, []byte(`{"id":"p","operation":"ping"}`)))
			require.Equal(t, map[string]any{"id": "p", "status": "pong"}, readJSON(t, c))

			// From here on c is read all the time, as a client does, also
			// while the test imports.
			msgs := readSocket(t, c)
			sub := map[string]any{"id": "s", "operation": "subscribe", "types": []string{"actions"}, "addresses": busy[:2], "include_address_book": true, "include_cursor": true}
			require.NoError(t, c.WriteJSON(sub))
			require.Equal(t, map[string]any{"id": "s", "status": "subscribed"}, recvSocket(t, msgs))
			require.Eventually(t, func() bool { return hub.Stats().Streams == 1 }, loadedWait, 5*time.Millisecond)

			var cursors []string
			collect := func(n int) []string {
				var ids []string
				for len(ids) < n {
					m := recvSocket(t, msgs)
					require.NotEmpty(t, m["cursor"], "include_cursor")
					cursors = append(cursors, m["cursor"].(string))
					require.Equal(t, "actions", m["type"], m)
					require.Equal(t, "finalized", m["finality"])
					require.Contains(t, m, "address_book")
					require.NotContains(t, m, "metadata")
					ids = append(ids, m["actions"].([]any)[0].(map[string]any)["action_id"].(string))
				}
				return ids
			}
			importFiles(t, st, files[:half])
			want := map[string]bool{}
			for _, a := range busy {
				page, _, _ := restActions(t, srv.URL, "account="+a)
				for id := range page {
					want[id] = true
				}
			}
			got := collect(len(want))
			require.ElementsMatch(t, keys(want), got)

			// Resume on the websocket: a new socket subscribing with "after"
			// (an event's cursor) gets what came after it, neither gap nor
			// repeat.
			k := len(got) / 2
			c2 := dialToncenter(t, srv.URL)
			require.NoError(t, c2.WriteJSON(map[string]any{"id": "r", "operation": "subscribe", "types": []string{"actions"}, "addresses": busy[:2], "after": cursors[k]}))
			require.Equal(t, map[string]any{"id": "r", "status": "subscribed"}, readJSON(t, c2))
			var resumed []string
			for len(resumed) < len(got)-k-1 {
				m := readJSON(t, c2)
				require.NotContains(t, m, "cursor", "only when asked")
				resumed = append(resumed, m["actions"].([]any)[0].(map[string]any)["action_id"].(string))
			}
			require.Equal(t, got[k+1:], resumed)
			require.NoError(t, c2.WriteMessage(websocket.TextMessage, []byte(`{"id":"bad","operation":"subscribe","types":["actions"],"addresses":["`+busy[0]+`"],"after":"seq:1"}`)))
			require.True(t, strings.HasPrefix(readJSON(t, c2)["error"].(string), "after"), "a cursor not of this API is refused naming after")
			c2.Close()
			require.Eventually(t, func() bool { return hub.Stats().Streams == 1 }, loadedWait, 5*time.Millisecond)

			require.NoError(t, c.WriteJSON(map[string]any{"id": "u", "operation": "unsubscribe", "addresses": []string{busy[1]}}))
			require.Equal(t, map[string]any{"id": "u", "status": "unsubscribed"}, recvSocket(t, msgs))
			importFiles(t, st, files[half:])
			page, _, _ := restActions(t, srv.URL, "account="+busy[0])
			var rest []string
			for id := range page {
				if !want[id] {
					rest = append(rest, id)
				}
			}
			require.ElementsMatch(t, rest, collect(len(rest)), "after unsubscribing, only the address left, from where the stream stood")
			require.NoError(t, c.WriteJSON(map[string]any{"id": "p2", "operation": "ping"}))
			require.Equal(t, map[string]any{"id": "p2", "status": "pong"}, recvSocket(t, msgs), "nothing else was sent")
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// subscribeToncenter sends sock the subscribe message msg (its operation
// set here) and returns its notifications as they come: read at once by
// a goroutine, which also answers the server's pings, while the test
// reads its other streams. No read deadline: the test's own waits bound
// it.
func subscribeToncenter(t testing.TB, sock *websocket.Conn, msg map[string]any) <-chan map[string]any {
	t.Helper()
	msg["operation"] = "subscribe"
	require.NoError(t, sock.WriteJSON(msg))
	require.Equal(t, map[string]any{"id": msg["id"], "status": "subscribed"}, readJSON(t, sock))
	return readSocket(t, sock)
}

// readSocket reads sock's messages at once into the returned channel (and
// so answers the server's pings), as a live client does: a test that
// stops reading while it imports would be cut as a slow client (its
// buffers full for the stall time, or its pongs late). No read deadline:
// the test's own waits bound it.
func readSocket(t testing.TB, sock *websocket.Conn) <-chan map[string]any {
	t.Helper()
	require.NoError(t, sock.SetReadDeadline(time.Time{}))
	msgs := make(chan map[string]any, 100_000)
	go func() {
		defer close(msgs)
		for {
			var m map[string]any
			if err := sock.ReadJSON(&m); err != nil {
				return
			}
			msgs <- m
		}
	}()
	return msgs
}

// recvSocket is the next message readSocket read.
func recvSocket(t testing.TB, msgs <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case m, ok := <-msgs:
		require.True(t, ok, "the server closed the websocket")
		return m
	case <-time.After(loadedWait):
		t.Fatal("no websocket message in time")
		return nil
	}
}

// requireNoMore fails when msgs holds another notification after the
// ones the test counted.
func requireNoMore(t testing.TB, msgs <-chan map[string]any, what string) {
	t.Helper()
	select {
	case m := <-msgs:
		t.Fatalf("more websocket notifications than %s: %v", what, m)
	case <-time.After(200 * time.Millisecond):
	}
}
