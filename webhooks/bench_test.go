package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/webhooks"
)

// BenchmarkDelivery imports every fixture block (7 commits, back to back
// or a second apart) while hooks watch about 150 of their actions, and reports commit-to-receiver latency (the time
// from the commit that stored an action to its delivery's arrival at a
// local receiver) and deliveries per second, with the default Poll and
// production settings but the loopback exemption. Run with -benchtime=1x.
func BenchmarkDelivery(b *testing.B) {
	files := blockFiles(b)
	for i, db := range testenv.Databases(b) {
		for _, c := range []struct {
			hooks int
			quiet bool
		}{{1, true}, {1, false}, {100, true}, {100, false}} {
			name := "burst"
			if c.quiet {
				name = "quiet"
			}
			b.Run(fmt.Sprintf("%s/%s/hooks=%d", db.Name, name, c.hooks), func(b *testing.B) {
				for range b.N {
					// A fresh database each run: the fixtures are imported anew.
					benchDelivery(b, testenv.Databases(b)[i], files, c.hooks, c.quiet)
				}
			})
		}
	}
}

// quiet imports the files one by one, a second apart (each commit's
// deliveries done before the next), burst back to back.
func benchDelivery(b *testing.B, db testenv.Database, files []string, hooks int, quiet bool) {
	ctx := context.Background()
	st := storetest.Open(b, db.URL)
	hub := startHub(b, st)
	var mu sync.Mutex
	committed := map[uint64]time.Time{} // seq -> when its commit was announced
	var lastSeen uint64
	st.OnActionsCommitted(func(last uint64) {
		now := time.Now()
		mu.Lock()
		for s := lastSeen + 1; s <= last; s++ {
			committed[s] = now
		}
		lastSeen = max(lastSeen, last)
		mu.Unlock()
	})
	var latencies []time.Duration
	var lastArrival time.Time
	rc := newReceiver(b)
	rc.behave = func(_ int, _ http.ResponseWriter, r *http.Request) bool {
		return true
	}
	o := webhooks.Options{Store: st, Hub: hub, ExemptAddrs: []string{rc.addr}, MaxHooksPerKey: hooks}
	svc := startService(b, o)
	watched := someOfAll(b)
	var ids []string
	for range hooks {
		made, err := svc.Create(ctx, "bench", webhooks.Input{URL: rc.url("/b"), Addresses: watched})
		require.NoError(b, err)
		rc.secret[made.Webhook.ID] = made.Secret
		ids = append(ids, made.Webhook.ID)
	}
	b.ResetTimer()
	start := time.Now()
	if quiet {
		for _, f := range files {
			importFiles(b, st, []string{f})
			time.Sleep(time.Second)
		}
	} else {
		importFiles(b, st, files)
	}
	want := expectedSeqs(b, st, watched, 0)
	waitFor(b, 10*time.Minute, func() bool {
		for _, id := range ids {
			if got, _ := rc.unique(id); len(got) < len(want) {
				return false
			}
		}
		return true
	}, func() string { return "not all delivered" })
	b.StopTimer()
	rc.mu.Lock()
	for _, id := range ids {
		for _, d := range rc.got[id] {
			if d.At.After(lastArrival) {
				lastArrival = d.At
			}
			mu.Lock()
			latencies = append(latencies, d.At.Sub(committed[d.Seq]))
			mu.Unlock()
		}
	}
	rc.mu.Unlock()
	slices.Sort(latencies)
	n := len(latencies)
	b.ReportMetric(float64(latencies[n/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[n*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(n)/lastArrival.Sub(start).Seconds(), "deliveries/s")
	b.ReportMetric(float64(n), "deliveries")
}
