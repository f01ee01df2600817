package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/lite"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// acceptingLite is a lite server that takes every message (the message is
// real; whether the network would take it is not what these tests ask).
type acceptingLite struct{ sent atomic.Int32 }

func (l *acceptingLite) MasterchainInfo(context.Context) (lite.MasterchainInfo, error) {
	return lite.MasterchainInfo{}, errors.New("not served by the test lite server")
}

func (l *acceptingLite) SendMessage(context.Context, []byte) error {
	l.sent.Add(1)
	return nil
}

// nextNamed waits for the next event with data, skipping nothing.
func nextEvent(t testing.TB, s *sseStream) sseEvent {
	t.Helper()
	ev, ok := s.next(t, 60*time.Second)
	require.True(t, ok, "the stream ended")
	return ev
}

// A message sent through sendBocReturnHash (a real mainnet external message
// of the fee-replay block, emulated on the states before that block) shows
// at once as pending actions on the streams that asked for pending, on our
// SSE and toncenter's; then either its real trace is stored (the block is
// imported) and comes as finalized actions of the same normalized hash,
// settling it, or nothing is stored in time and an invalidation comes.
func TestStreamPendingThenFinalizedOrInvalidated(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			replay := importFeeReplay(t, db)
			msg := replay.msgs[0]
			req, err := fees.ParseParams(fees.Params{Boc: msg.Message})
			require.NoError(t, err)
			_, norm, err := req.MessageHashes()
			require.NoError(t, err)
			account := chain.RawAddress(msg.Account)

			for _, outcome := range []string{"finalized", "invalidated"} {
				t.Run(outcome, func(t *testing.T) {
					st := storetest.Open(t, sameKind(t, db)) // the stream's store: the block is not in it yet
					est := fees.New(replay.st, nil, fees.Options{Now: func() time.Time { return replay.now }})
					lc := &acceptingLite{}
					res := &resolvers.Resolver{Store: st, Fees: est, Lite: lc}
					timeout := time.Minute
					if outcome == "invalidated" {
						timeout = 300 * time.Millisecond
					}
					hub := startHub(t, st, res, notify.Options{PendingTimeout: timeout})
					srv := streamServer(t, server.Options{Resolver: res})

					own, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": []string{account}, "min_finality": "pending"})
					require.Nil(t, refused)
					tc, refused := postSSE(t, srv.URL, "/api/streaming/v2/sse", map[string]any{"addresses": []string{account}, "types": []string{"actions"}, "min_finality": "pending"})
					require.Nil(t, refused)
					require.Equal(t, "connected", nextEvent(t, tc).Event)
					final, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": []string{account}})
					require.Nil(t, refused)
					gql := dialGraphQL(t, srv.URL, "").subscribe(t, "p", subscribePending,
						map[string]any{"w": map[string]any{"addresses": []string{account}, "min_finality": "pending"}})
					require.Eventually(t, func() bool { return hub.Stats().Streams == 4 }, 10*time.Second, 5*time.Millisecond)

					resp, err := http.Post(srv.URL+"/api/v2/sendBocReturnHash", "application/json", strings.NewReader(fmt.Sprintf(`{"boc":%q}`, msg.Message)))
					require.NoError(t, err)
					resp.Body.Close()
					require.Equal(t, http.StatusOK, resp.StatusCode)
					require.EqualValues(t, 1, lc.sent.Load())

					ev := nextEvent(t, own)
					require.Equal(t, "pending", ev.Event)
					require.Empty(t, ev.ID, "pending news moves no position")
					p := parseStreamed(t, ev.Data)
					require.NotEmpty(t, p.Actions)
					require.Equal(t, norm.Base64(), p.Actions[0]["trace_external_hash_norm"])
					var n map[string]any
					tev := nextEvent(t, tc)
					require.Equal(t, "event", tev.Event)
					require.NoError(t, json.Unmarshal([]byte(tev.Data), &n))
					require.Equal(t, "pending", n["finality"])
					require.Equal(t, norm.Base64(), n["trace_external_hash_norm"])
					// Drain the rest of the pending actions of the trace.
					for i := 1; i < len(p.Actions); i++ {
						nextEvent(t, own)
						nextEvent(t, tc)
					}
					// GraphQL tells the same pending actions, by finality.
					var pendingIDs []any
					for range p.Actions {
						g := nextGQL(t, gql)
						require.Equal(t, "pending", g.Finality)
						require.Equal(t, norm.Base64(), g.Action["trace_external_hash_norm"])
						pendingIDs = append(pendingIDs, g.Action["action_id"])
					}

					if outcome == "invalidated" {
						ev = nextEvent(t, own)
						for ev.Event == "pending" {
							ev = nextEvent(t, own)
						}
						require.Equal(t, "invalidated", ev.Event)
						require.JSONEq(t, fmt.Sprintf(`{"trace_external_hash_norm":%q}`, norm.Base64()), ev.Data)
						tev = nextEvent(t, tc)
						for strings.Contains(tev.Data, `"finality":"pending"`) {
							tev = nextEvent(t, tc)
						}
						require.JSONEq(t, fmt.Sprintf(`{"type":"trace_invalidated","trace_external_hash_norm":%q}`, norm.Base64()), tev.Data)
						// GraphQL's action is non-null: each pending action comes
						// again, invalidated.
						var void []any
						for range pendingIDs {
							g := nextGQL(t, gql)
							require.Equal(t, "invalidated", g.Finality)
							void = append(void, g.Action["action_id"])
						}
						require.Equal(t, pendingIDs, void)
						require.Equal(t, 0, hub.Stats().Pending)
						return
					}

					_, err = ingest.New(st).ImportFile(context.Background(), testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
					require.NoError(t, err)
					// The real trace comes finalized (with an id), on the
					// pending stream as on the one that wanted only finalized.
					for _, s := range []*sseStream{own, final} {
						for {
							ev := nextEvent(t, s)
							require.NotEqual(t, "invalidated", ev.Event)
							if ev.Event == "pending" {
								continue
							}
							require.NotEmpty(t, ev.ID)
							if parseStreamed(t, ev.Data).Actions[0]["trace_external_hash_norm"] == norm.Base64() {
								break
							}
						}
					}
					for {
						g := nextGQL(t, gql)
						require.NotEqual(t, "invalidated", g.Finality)
						if g.Finality == "finalized" && g.Action["trace_external_hash_norm"] == norm.Base64() {
							break
						}
					}
					require.Eventually(t, func() bool { return hub.Stats().Pending == 0 }, 10*time.Second, 5*time.Millisecond, "settled by its stored trace")
				})
			}
		})
	}
}

const subscribePending = `subscription($w: StreamWatch) {
	actions(watch: $w) { cursor finality action { action_id trace_external_hash_norm } }
}`

type pendingGQL struct {
	Finality string         `json:"finality"`
	Action   map[string]any `json:"action"`
}

// nextGQL is the next event of a GraphQL subscription (its errors fail).
func nextGQL(t testing.TB, ch <-chan gqlMessage) pendingGQL {
	t.Helper()
	select {
	case m, ok := <-ch:
		require.True(t, ok, "socket closed")
		require.Equal(t, "next", m.Type, string(m.Payload))
		var out struct {
			Data struct {
				Actions pendingGQL `json:"actions"`
			} `json:"data"`
			Errors []any `json:"errors"`
		}
		require.NoError(t, json.Unmarshal(m.Payload, &out))
		require.Empty(t, out.Errors)
		return out.Data.Actions
	case <-time.After(time.Minute):
		t.Fatal("no GraphQL event within a minute")
	}
	return pendingGQL{}
}

// sameKind is a fresh database of db's kind (SQLite or Postgres).
func sameKind(t testing.TB, db testenv.Database) string {
	for _, d := range testenv.Databases(t) {
		if d.Name == db.Name {
			return d.URL
		}
	}
	t.Fatalf("no fresh %s database", db.Name)
	return ""
}
