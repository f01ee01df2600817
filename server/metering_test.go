package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
)

// process is one running server: an HTTP server over a handler with its
// own meter, whose owner goroutine is stopped after the server drains, the
// order serve uses.
type process struct {
	srv  *httptest.Server
	stop func() error
}

// handled counts the requests that reached a process's handler and were
// answered (below 500: an answer the server failed to give costs no unit).
func (e *accessEnv) startProcess(handled *atomic.Int64) *process {
	m := e.meter()
	stopMeter := startMeter(m)
	h := e.handler(m)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.status < 500 {
			handled.Add(1)
		}
	}))
	return &process{srv: srv, stop: func() error {
		srv.Close() // waits for requests in flight
		return stopMeter()
	}}
}

// 10,000 requests from 16 clients over REST, JSON-RPC and GraphQL, with the
// server restarted (new process, same store and Redis) in the middle while
// clients keep sending: every request a server handled is counted exactly
// once, none for the idle key.
//
// A request can be handled and still fail at the client: net/http may
// close a keep-alive connection it considers idle after the next request
// was already read (the shutdown race of net/http, not of metering). The
// client retries those, so the servers may handle a few more than 10,000;
// the units must match what was handled, not what the clients saw.
func TestUnitsExactAcrossRestart(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		for _, withRedis := range []bool{false, true} {
			name := db.Name + "/memory"
			if withRedis {
				name = db.Name + "/redis"
			}
			t.Run(name, func(t *testing.T) {
				e := newAccessEnv(t, db, accessConfig{require: true, redis: withRedis})
				key, _ := e.newKey(t, "busy", ratelimit.Limit{Rate: -1})
				idle, _ := e.newKey(t, "idle", ratelimit.Limit{Rate: -1})
				const total, clients = 10_000, 16
				reqs := []struct{ method, path, body string }{
					{http.MethodGet, "/api/v3/actions?limit=2", ""},
					{http.MethodPost, "/api/v2/jsonRPC", `{"jsonrpc":"2.0","id":"x","method":"estimateFee","params":{}}`},
					{http.MethodPost, "/graphql", `{"query":"{ __typename }"}`},
					{http.MethodPost, "/api/v2/estimateFee", `{}`},
				}

				var cur atomic.Pointer[process]
				var handled atomic.Int64
				cur.Store(e.startProcess(&handled))
				var stopping sync.WaitGroup
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
				defer client.CloseIdleConnections()
				var next, retries atomic.Int64
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() {
						for {
							i := next.Add(1)
							if i > total {
								return
							}
							if i == total/2 {
								old := cur.Swap(e.startProcess(&handled))
								stopping.Go(func() {
									if err := old.stop(); err != nil {
										t.Errorf("stop the first process: %v", err)
									}
								})
							}
							r := reqs[i%int64(len(reqs))]
							for {
								req, _ := http.NewRequest(r.method, cur.Load().srv.URL+"/"+key+r.path, strings.NewReader(r.body))
								req.Header.Set("Content-Type", "application/json")
								resp, err := client.Do(req)
								if err != nil {
									// Refused by a server shutting down before
									// it read the request: nothing was counted.
									retries.Add(1)
									continue
								}
								_, _ = io.Copy(io.Discard, resp.Body)
								resp.Body.Close()
								// Without an estimator the fee routes answer 503:
								// accepted, and not charged.
								if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
									t.Errorf("%s %s: status %d", r.method, r.path, resp.StatusCode)
									return
								}
								break
							}
						}
					})
				}
				wg.Wait()
				stopping.Wait()
				require.NoError(t, cur.Load().stop())
				t.Logf("retried %d requests refused during the restart", retries.Load())
				require.Equal(t, handled.Load(), e.units(t, key))
				require.LessOrEqual(t, handled.Load()-total, retries.Load())
				require.Zero(t, e.units(t, idle))
			})
		}
	}
}

// statusRecorder remembers the status a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}
