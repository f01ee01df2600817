package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// TestStreamLimitsUnitsAndRevocation: streams are opened under a key like
// any request (one unit each), bounded per key and per server (429 in the
// route's envelope), and a revoked key's streams end within seconds with a
// last event that says so.
func TestStreamLimitsUnitsAndRevocation(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			e := newAccessEnv(t, db, accessConfig{limit: ratelimit.Limit{}})
			e.access.Keys = apikey.NewLookup(e.st, apikey.LookupOptions{TTL: -1})
			hub := startHub(t, e.st, e.res, notify.Options{MaxStreamsPerKey: 2, MaxStreams: 4, RevokeCheck: 200 * time.Millisecond})
			m := e.meter()
			stop := sync.OnceValue(startMeter(m))
			t.Cleanup(func() { _ = stop() })
			a := *e.access
			a.Meter = m
			srv := streamServer(t, server.Options{Resolver: e.res, Access: &a})
			alice, _ := e.newKey(t, "alice", ratelimit.Limit{})
			bob, _ := e.newKey(t, "bob", ratelimit.Limit{})

			var aliceStreams []*sseStream
			for range 2 {
				s, refused := openSSE(t, srv.URL, "/"+alice+"/api/v3/actions/stream?action_type=JettonTransfer", "")
				require.Nil(t, refused)
				aliceStreams = append(aliceStreams, s)
			}
			// A third stream of the key: 429, v3 envelope.
			_, refused := openSSE(t, srv.URL, "/"+alice+"/api/v3/actions/stream", "")
			require.NotNil(t, refused)
			requireEnvelope(t, refused, http.StatusTooManyRequests, "MAX_STREAMS_PER_KEY")
			// Over a websocket the refusal is the subscription's GraphQL error.
			ws := dialGraphQL(t, srv.URL, "/"+alice)
			// (gqlgen sends a resolver's refusal as a result with errors, then
			// complete; graphql-ws hands both to the sink.)
			m1 := <-ws.subscribe(t, "1", subscribeActions, nil)
			require.Contains(t, string(m1.Payload), `"code":"RATE_LIMITED"`)

			// Bob fills the server (4 streams), then even a bare stream is refused.
			bobWS := dialGraphQL(t, srv.URL, "/"+bob)
			bobSub := bobWS.subscribe(t, "b", subscribeActions, nil)
			bobSSE, refused := openSSE(t, srv.URL, "/"+bob+"/api/v3/actions/stream", "")
			require.Nil(t, refused)
			require.Eventually(t, func() bool { return hub.Stats().Streams == 4 }, 5*time.Second, time.Millisecond)
			_, refused = openSSE(t, srv.URL, "/api/v3/actions/stream", "")
			require.NotNil(t, refused)
			requireEnvelope(t, refused, http.StatusTooManyRequests, "limit of 4 streams")

			// Revoking alice ends her streams; bob's go on.
			revokedAt := time.Now()
			_, err := e.st.RevokeKey(context.Background(), apikey.Hash(alice))
			require.NoError(t, err)
			for _, s := range aliceStreams {
				ev, ok := s.next(t, 10*time.Second)
				require.True(t, ok)
				require.Equal(t, "end", ev.Event)
				var body map[string]any
				require.NoError(t, json.Unmarshal([]byte(ev.Data), &body))
				require.EqualValues(t, 401, body["code"], ev.Data)
				require.Equal(t, ev.ID, body["cursor"])
				_, open := s.next(t, 10*time.Second)
				require.False(t, open, "the stream must close after its end event")
			}
			t.Logf("revoked key's streams ended %s after the revocation (check interval 200 ms)", time.Since(revokedAt).Round(time.Millisecond))
			require.Eventually(t, func() bool { return hub.Stats().Streams == 2 }, 5*time.Second, time.Millisecond)
			_, refused = openSSE(t, srv.URL, "/"+alice+"/api/v3/actions/stream", "")
			require.NotNil(t, refused)
			requireEnvelope(t, refused, http.StatusUnauthorized, "API key does not exist")
			// Her socket refuses further operations.
			m2 := <-ws.subscribe(t, "2", subscribeActions, nil)
			require.Contains(t, string(m2.Payload), "API key does not exist")

			select {
			case m := <-bobSub:
				t.Fatalf("bob's subscription got %s", m.Payload)
			default:
			}
			bobSSE.Close()
			require.NoError(t, stop())
			// Units: alice opened 3 streams, 1 socket and 1 operation on it
			// (a refused one counts: it was admitted, then the stream
			// limit said no); bob 1 socket, 1 subscription, 1 stream.
			require.EqualValues(t, 5, e.units(t, alice))
			require.EqualValues(t, 3, e.units(t, bob))
		})
	}
}

func requireEnvelope(t testing.TB, resp *http.Response, status int, msg string) {
	t.Helper()
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, status, resp.StatusCode, body)
	require.EqualValues(t, status, body["code"])
	require.Contains(t, body["error"], msg)
	require.NotContains(t, body, "ok", "v3 envelope")
}

// TestStreamsAcrossServers: two servers on one Postgres. A subscriber on
// B gets what an import through A wrote, by NOTIFY alone (B's poll is an
// hour), and a server whose notifications are lost (no LISTEN) still gets
// it by polling, later.
func TestStreamsAcrossServers(t *testing.T) {
	url := testenv.NewPostgresDatabase(t)
	if url == "" {
		t.Skip("Postgres not configured")
	}
	files := allFixtureFiles(t)
	a := storetest.Open(t, url)
	committed := map[uint64]time.Time{}
	var mu sync.Mutex
	a.OnActionsCommitted(func(last uint64) {
		mu.Lock()
		committed[last] = time.Now()
		mu.Unlock()
	})
	subscriber := func(o notify.Options) *sseStream {
		st := storetest.Open(t, url)
		res := &resolvers.Resolver{Store: st}
		startHub(t, st, res, o)
		srv := streamServer(t, server.Options{Resolver: res})
		s, refused := openSSE(t, srv.URL, "/api/v3/actions/stream", "")
		require.Nil(t, refused)
		return s
	}
	b := subscriber(notify.Options{Poll: time.Hour, Queue: 100_000})
	c := subscriber(notify.Options{NoListen: true, Poll: 250 * time.Millisecond, Queue: 100_000})

	importFiles(t, a, files)
	var stored int
	// The unfiltered stream hides nested actions, as a page does.
	require.NoError(t, a.DB().NewRaw("SELECT count(*) FROM actions WHERE ancestors = ''").Scan(context.Background(), &stored))
	mu.Lock()
	commits := make([]uint64, 0, len(committed))
	for seq := range committed {
		commits = append(commits, seq)
	}
	mu.Unlock()
	slices.Sort(commits)
	for name, s := range map[string]*sseStream{"NOTIFY": b, "polling only": c} {
		// An event's commit is the first whose highest number is at or
		// above its seq (the highest may be another event's: a trace's);
		// a commit's delay is its last event's arrival.
		lastAt := map[uint64]time.Time{}
		seen := map[string]bool{}
		for len(seen) < stored {
			ev, ok := s.next(t, 30*time.Second)
			require.True(t, ok)
			id := parseStreamed(t, ev.Data).Actions[0]["action_id"].(string)
			require.False(t, seen[id], "%s delivered twice", id)
			seen[id] = true
			seq := cursorSeq(t, ev.ID)
			k := sort.Search(len(commits), func(j int) bool { return commits[j] >= seq })
			require.Less(t, k, len(commits), "an event after every commit")
			lastAt[commits[k]] = ev.At
		}
		lat := make([]time.Duration, 0, len(lastAt))
		for c, at := range lastAt {
			lat = append(lat, at.Sub(committed[c]))
		}
		slices.Sort(lat)
		require.NotEmpty(t, lat)
		t.Logf("%s: %d actions of %d commits through another server; commit -> client p50 %s, max %s",
			name, stored, len(lat), lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	}
}
