package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/webhooks"
)

// Of 1,000 hooks, one whose receiver hangs does not delay the other 999:
// they get every event while it has taken none; once it answers again it
// gets its events too.
func TestSlowReceiverDoesNotDelayOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 hooks")
	}
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			hub := startHub(t, st)
			fast, slow := newReceiver(t), newReceiver(t)
			release := make(chan struct{})
			slow.behave = func(_ int, w http.ResponseWriter, r *http.Request) bool {
				select {
				case <-release:
					return true
				case <-r.Context().Done(): // the server gave up (its timeout)
					return false
				}
			}
			o := fastOptions(st, hub, fast.addr, slow.addr)
			o.Timeout = 2 * time.Second
			svc := startService(t, o)
			all := someOfAll(t)
			watched := all[len(all)-2:]
			var hooks []string
			for i := range 1000 {
				rc := fast
				if i == 500 {
					rc = slow
				}
				made, err := svc.Create(ctx, fmt.Sprintf("key%d", i%10), webhooks.Input{URL: rc.url("/h"), Addresses: watched})
				require.NoError(t, err)
				rc.mu.Lock()
				rc.secret[made.Webhook.ID] = made.Secret
				rc.mu.Unlock()
				hooks = append(hooks, made.Webhook.ID)
			}
			started := time.Now()
			importFiles(t, st, files)
			want := expectedSeqs(t, st, watched, 0)
			require.NotEmpty(t, want)
			complete := func(rc *receiver, id string) bool {
				got, _ := rc.unique(id)
				return len(got) >= len(want)
			}
			waitFor(t, 5*time.Minute, func() bool {
				for i, id := range hooks {
					if i != 500 && !complete(fast, id) {
						return false
					}
				}
				return true
			}, func() string { return "fast hooks not done" })
			took := time.Since(started)
			got, _ := slow.unique(hooks[500])
			require.Empty(t, got, "the hung receiver took nothing meanwhile")
			for i, id := range hooks {
				if i != 500 {
					g, _ := fast.unique(id)
					require.Equal(t, want, g, id)
				}
			}
			t.Logf("%s: 999 hooks x %d events = %d deliveries in %s (%.0f/s) while one receiver hung",
				db.Name, len(want), 999*len(want), took.Round(time.Millisecond), float64(999*len(want))/took.Seconds())
			close(release)
			waitFor(t, time.Minute, func() bool { return complete(slow, hooks[500]) }, func() string {
				return "slow hook not done"
			})
			got, _ = slow.unique(hooks[500])
			require.Equal(t, want, got)
		})
	}
}
