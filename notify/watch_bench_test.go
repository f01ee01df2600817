package notify

import (
	"fmt"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

func benchAddress(i int) string { return fmt.Sprintf("0:%064X", i) }

// BenchmarkFanOutWatchSets (ns/op = per event) is the live match of one action (two
// participants, one watched) against subscriptions watching sets of
// growing size: the cost per event must not grow with the sets.
func BenchmarkFanOutWatchSets(b *testing.B) {
	for _, c := range []struct {
		name       string
		subs, size int
	}{{"1sub_x_1addr", 1, 1}, {"1sub_x_10000addr", 1, 10_000}, {"100subs_x_10000addr", 100, 10_000}} {
		b.Run(c.name, func(b *testing.B) {
			h := &Hub{o: Options{Queue: 1 << 30}, subs: map[*Subscription]struct{}{}, others: map[*Subscription]struct{}{},
				byAccount: map[string]map[*Subscription]struct{}{}, byExt: map[string]map[*Subscription]struct{}{}}
			var all []*Subscription
			for i := range c.subs {
				set := make([]string, c.size)
				for j := range set {
					set[j] = benchAddress(i*c.size + j)
				}
				s := &Subscription{hub: h, req: Request{Filter: store.ActionFilter{WatchAccounts: set}}, wake: make(chan struct{}, 1)}
				s.watch = newWatch(&s.req.Filter)
				s.live = true
				h.subs[s] = struct{}{}
				h.index(s)
				all = append(all, s)
			}
			hash := "AAAA"
			a := &chain.Action{ActionID: "x", Type: "TonTransfer", Accounts: []string{benchAddress(0), "0:FFFF"}, TraceExternalHashNorm: &hash}
			b.ReportAllocs()
			b.ResetTimer()
			// A page of 100 events per fan-out, as a commit brings them: the
			// per-page work (telling every live subscription the new
			// position) is shared, the per-event match is what is measured.
			page := make([]*Event, 100)
			seq := uint64(0)
			for i := 0; i < b.N; i += len(page) {
				for j := range page {
					seq++
					page[j] = &Event{Seq: seq, Action: a}
				}
				h.fanOut(page, seq)
				s := all[0]
				s.mu.Lock()
				s.queue = s.queue[:0]
				s.mu.Unlock()
			}
		})
	}
}
