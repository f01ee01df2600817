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

// BenchmarkDelivery imports every fixture block while hooks watch about
// 150 of their actions, and reports commit-to-receiver latency (the time
// from the commit that stored an action to its delivery's arrival at a
// local receiver) and deliveries per second, with the default Poll and
// production settings but the loopback exemption. Run with -benchtime=1x.
func BenchmarkDelivery(b *testing.B) {
	files := blockFiles(b)
	for i, db := range testenv.Databases(b) {
		for _, hooks := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/hooks=%d", db.Name, hooks), func(b *testing.B) {
				for range b.N {
					// A fresh database each run: the fixtures are imported anew.
					benchDelivery(b, testenv.Databases(b)[i], files, hooks)
				}
			})
		}
	}
}

func benchDelivery(b *testing.B, db testenv.Database, files []string, hooks int) {
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
	importFiles(b, st, files)
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
