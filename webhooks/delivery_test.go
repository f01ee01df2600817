package webhooks_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/webhooks"
)

// A receiver that answers 500, times out, redirects and is down for a
// while gets every event of its hook, in order, exactly once after dedup
// by event id, on both databases; the log shows the failed attempts.
func TestEveryEventThroughFailures(t *testing.T) {
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st, _, rc, svc := newRig(t, db.URL)
			watched := someOfAll(t)
			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			made, err := svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/hook"), Addresses: watched})
			require.NoError(t, err)
			hook := made.Webhook.ID
			rc.mu.Lock()
			rc.secret[hook] = made.Secret
			// Of every 6 requests: a 500, a timeout, a redirect, 3 successes.
			rc.behave = func(n int, w http.ResponseWriter, r *http.Request) bool {
				switch n % 6 {
				case 1:
					http.Error(w, "receiver broken", http.StatusInternalServerError)
					return false
				case 2:
					select {
					case <-time.After(400 * time.Millisecond): // past the 200 ms timeout
					case <-r.Context().Done():
					}
					return false
				case 3:
					http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusFound)
					return false
				}
				return true
			}
			rc.mu.Unlock()

			done := make(chan struct{})
			go func() {
				defer close(done)
				importFiles(t, st, files[:4])
				// Down while events of its own commits wait, however fast
				// the earlier ones were delivered.
				rc.downWhile(func() {
					importFiles(t, st, files[4:])
					time.Sleep(300 * time.Millisecond)
				})
			}()
			<-done
			want := expectedSeqs(t, st, watched, start)
			require.NotEmpty(t, want)
			got, repeats := awaitHook(t, 3*time.Minute, svc, rc, hook, len(want))
			require.Equal(t, want, got, "every event, in order, once after dedup")
			require.Empty(t, rc.bad, "every delivery was signed")
			t.Logf("%s: %d events, %d repeats, %d requests", db.Name, len(want), repeats, rc.requests)

			h, err := svc.Get(ctx, "key1", hook)
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				h, err = svc.Get(ctx, "key1", hook)
				return err == nil && h.Pending == 0 && h.Status == "active"
			}, 10*time.Second, 20*time.Millisecond)
			// A delivery's log line is written just after its event leaves
			// the queue (deliver.go: a crash between loses a line, never
			// resends), so the last line may lag Pending == 0.
			var outcomes map[string]int
			var errs map[string]bool
			require.Eventually(t, func() bool {
				log, err := svc.Deliveries(ctx, "key1", hook, 1000)
				require.NoError(t, err)
				outcomes, errs = map[string]int{}, map[string]bool{}
				for _, d := range log {
					outcomes[d.Outcome]++
					if d.Error != nil {
						errs[classify(*d.Error)] = true
					}
				}
				return outcomes["delivered"] >= len(want)
			}, 10*time.Second, 20*time.Millisecond)
			// Each event's success is logged once; a repeat the receiver saw
			// is a success the sender took for a failure (a late answer).
			require.Equal(t, len(want), outcomes["delivered"])
			require.LessOrEqual(t, repeats, outcomes["failed"])
			require.Positive(t, outcomes["failed"])
			for _, kind := range []string{"HTTP 500", "timed out", "HTTP 302", "connection failed"} {
				require.True(t, errs[kind], "log shows %q: %v", kind, errs)
			}
		})
	}
}

func classify(e string) string {
	for _, k := range []string{"HTTP 500", "timed out", "HTTP 302", "connection failed"} {
		if strings.Contains(e, k) {
			return k
		}
	}
	return e
}

// A worker whose lease runs out while it waits (on SQLite a long import
// holds the one write lock; here a receiver slower than the lease) keeps
// its hook: the process does not start a second worker on it beside the
// first, which sent the same events twice (TestKillNineLosesNothing saw 21
// repeats on SQLite). One process, no kill: not one repeat, on both
// databases.
func TestExpiredLeaseIsNotWorkedTwice(t *testing.T) {
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			hub := startHub(t, st)
			rc := newReceiver(t)
			o := fastOptions(st, hub, rc.addr)
			// Every attempt (the receiver's 50 ms) outlasts the lease. The
			// timeout is far above it: on a loaded machine an attempt cut by
			// the client's timeout is sent again, which the test would take
			// for a second worker.
			o.Timeout, o.Lease = 30*time.Second, 20*time.Millisecond
			svc := startService(t, o)
			watched := someOfAll(t)
			made, err := svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/slow"), Addresses: watched})
			require.NoError(t, err)
			hook := made.Webhook.ID
			rc.mu.Lock()
			rc.secret[hook] = made.Secret
			rc.behave = func(int, http.ResponseWriter, *http.Request) bool {
				time.Sleep(50 * time.Millisecond)
				return true
			}
			rc.mu.Unlock()
			importFiles(t, st, files[:3])
			want := expectedSeqs(t, st, watched, 0)
			require.NotEmpty(t, want)
			got, repeats := awaitHook(t, loadedWait, svc, rc, hook, len(want))
			require.Equal(t, want, got, "every event, in order")
			require.Zero(t, repeats, "one worker per hook in a process")
			t.Logf("%s: %d events through a %s lease", db.Name, len(want), o.Lease)
		})
	}
}
