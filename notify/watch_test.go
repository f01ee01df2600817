package notify_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/store"
)

// fixtureAccounts imports every fixture into a scratch SQLite store and
// returns its top-level actions (what an unfiltered stream shows) in seq
// order: the facts the watch tests choose their sets from.
func fixtureActions(t *testing.T) []store.SeqAction {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	importAll(t, st, blockFiles(t))
	rows, err := st.ActionsAfter(context.Background(), store.ActionFilter{}, 0, 1_000_000)
	require.NoError(t, err)
	return rows
}

// syntheticAddress is an address no fixture has: the set's filler.
func syntheticAddress(i int) string {
	h := sha256.Sum256([]byte(fmt.Sprint("unwatched-filler-", i)))
	return "0:" + strings.ToUpper(hex.EncodeToString(h[:]))
}

type received struct {
	mu   sync.Mutex
	ids  []string
	lat  []time.Duration
	done chan struct{}
}

// consume reads s until it ends, timing each event from its commit (the
// store's commit callback for the highest seq at or after it).
func consume(ctx context.Context, s *notify.Subscription, commits *commitClock) *received {
	r := &received{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			e, err := s.Next(ctx)
			if err != nil {
				return
			}
			if e == nil {
				select {
				case <-ctx.Done():
					return
				case <-s.Ready():
				}
				continue
			}
			now := time.Now()
			r.mu.Lock()
			r.ids = append(r.ids, e.Action.ActionID)
			if at, ok := commits.at(e.Seq); ok {
				r.lat = append(r.lat, now.Sub(at))
			}
			r.mu.Unlock()
		}
	}()
	return r
}

func (r *received) snapshot() ([]string, []time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ids), slices.Clone(r.lat)
}

// commitClock records when each commit that told new actions happened.
type commitClock struct {
	mu    sync.Mutex
	seqs  []uint64
	times []time.Time
}

func (c *commitClock) commit(last uint64) {
	c.mu.Lock()
	c.seqs, c.times = append(c.seqs, last), append(c.times, time.Now())
	c.mu.Unlock()
}

func (c *commitClock) at(seq uint64) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := sort.Search(len(c.seqs), func(i int) bool { return c.seqs[i] >= seq })
	if i == len(c.seqs) {
		return time.Time{}, false
	}
	return c.times[i], true
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// A stream watching 10,000 addresses (every other account of the fixtures,
// the rest addresses no block has) during an import of every fixture gets
// each action of a watched account exactly once, and none other; a replay
// of the same set from the start gets the same list; so does a stream
// watching the normalized external hashes of a few traces. Beside it a
// one-address stream runs, and both streams' commit-to-client latencies
// are logged (docs/PERFORMANCE.md).
func TestWatchSetDuringImport(t *testing.T) {
	all := fixtureActions(t)
	accounts := map[string]bool{}
	for _, a := range all {
		for _, acc := range a.Accounts {
			accounts[acc] = true
		}
	}
	sorted := make([]string, 0, len(accounts))
	for a := range accounts {
		sorted = append(sorted, a)
	}
	sort.Strings(sorted)
	watched := map[string]bool{}
	var set []string
	for i, a := range sorted {
		if i%2 == 0 {
			watched[a] = true
			set = append(set, a)
		}
	}
	for i := 0; len(set) < 10_000; i++ {
		set = append(set, syntheticAddress(i))
	}
	var want, wantOne, wantExt []string
	// The one-address stream watches the busiest account the set does not.
	counts := map[string]int{}
	for _, a := range all {
		for _, acc := range a.Accounts {
			counts[acc]++
		}
	}
	one := sorted[1]
	for i, a := range sorted {
		if i%2 == 1 && counts[a] > counts[one] {
			one = a
		}
	}
	exts := map[string]bool{}
	for _, a := range all {
		if a.TraceExternalHashNorm != nil && len(exts) < 3 && !exts[*a.TraceExternalHashNorm] {
			exts[*a.TraceExternalHashNorm] = true
		}
	}
	var extList []string
	for h := range exts {
		extList = append(extList, h)
	}
	for _, a := range all {
		if slices.ContainsFunc(a.Accounts, func(acc string) bool { return watched[acc] }) {
			want = append(want, a.ActionID)
		}
		if slices.Contains(a.Accounts, one) {
			wantOne = append(wantOne, a.ActionID)
		}
		if a.TraceExternalHashNorm != nil && exts[*a.TraceExternalHashNorm] {
			wantExt = append(wantExt, a.ActionID)
		}
	}
	require.NotEmpty(t, want)
	require.Less(t, len(want), len(all), "some actions concern no watched address")
	require.NotEmpty(t, wantOne)
	require.NotEmpty(t, wantExt)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			var clock commitClock
			st.OnActionsCommitted(clock.commit)
			h := start(t, st, notify.Options{Poll: 50 * time.Millisecond})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			open := func(f store.ActionFilter) *received {
				s, err := h.Subscribe(ctx, notify.Request{Filter: f})
				require.NoError(t, err)
				t.Cleanup(s.Close)
				return consume(ctx, s, &clock)
			}
			many := open(store.ActionFilter{WatchAccounts: set})
			single := open(store.ActionFilter{Account: one})
			byExt := open(store.ActionFilter{WatchExtNorms: extList})

			importAll(t, st, blockFiles(t))
			last, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return h.Stats().Last >= last }, time.Minute, 10*time.Millisecond)
			if !assertEventually(func() bool { ids, _ := many.snapshot(); return len(ids) >= len(want) }) {
				ids, _ := many.snapshot()
				got := map[string]bool{}
				for _, id := range ids {
					got[id] = true
				}
				for _, a := range all {
					if !got[a.ActionID] && slices.Contains(want, a.ActionID) {
						t.Logf("missing %s seq %d %v", a.ActionID, a.Seq, a.Accounts)
					}
				}
				t.Fatalf("got %d of %d", len(ids), len(want))
			}

			ids, lat := many.snapshot()
			require.ElementsMatch(t, want, ids, "each watched action once, none other")
			oneIDs, oneLat := single.snapshot()
			require.ElementsMatch(t, wantOne, oneIDs)
			extIDs, _ := byExt.snapshot()
			require.ElementsMatch(t, wantExt, extIDs)
			t.Logf("%s: 10,000-address stream: %d events, commit-to-client p50 %v p99 %v; one-address stream: %d events, p50 %v p99 %v",
				db.Name, len(ids), percentile(lat, 0.5), percentile(lat, 0.99), len(oneIDs), percentile(oneLat, 0.5), percentile(oneLat, 0.99))

			// The replay reads the same set from the store (action_accounts).
			zero := uint64(0)
			s, err := h.Subscribe(ctx, notify.Request{Filter: store.ActionFilter{WatchAccounts: set}, After: &zero})
			require.NoError(t, err)
			defer s.Close()
			var replayed []string
			for {
				e, err := s.Next(ctx)
				require.NoError(t, err)
				if e == nil {
					break
				}
				replayed = append(replayed, e.Action.ActionID)
			}
			require.ElementsMatch(t, want, replayed)
		})
	}
}

// One stream's set is bounded by MaxWatch (422 naming the field), a key's
// streams' sets together by MaxWatchPerKey (429 naming the setting), and
// closing a stream gives its share back.
func TestWatchLimits(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	h := start(t, st, notify.Options{MaxWatch: 3, MaxWatchPerKey: 5})
	err := h.CheckWatch("addresses", 4)
	require.Equal(t, apperr.Invalid, apperr.From(err).Kind)
	require.True(t, strings.HasPrefix(apperr.From(err).Public(), "addresses"), err.Error())
	require.NoError(t, h.CheckWatch("addresses", 3))

	ctx := context.Background()
	three := store.ActionFilter{WatchAccounts: []string{syntheticAddress(1), syntheticAddress(2), syntheticAddress(3)}}
	a, err := h.Subscribe(ctx, notify.Request{Filter: three, Owner: "k"})
	require.NoError(t, err)
	_, err = h.Subscribe(ctx, notify.Request{Filter: three, Owner: "k"})
	require.Equal(t, apperr.RateLimited, apperr.From(err).Kind)
	require.ErrorContains(t, err, "MAX_WATCHED_PER_KEY")
	other, err := h.Subscribe(ctx, notify.Request{Filter: three, Owner: "other"})
	require.NoError(t, err, "another key has its own share")
	other.Close()
	a.Close()
	b, err := h.Subscribe(ctx, notify.Request{Filter: three, Owner: "k"})
	require.NoError(t, err, "a closed stream's share is free again")
	b.Close()
}

func assertEventually(f func() bool) bool {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if f() {
			return true
		}
	}
	return false
}

// Under a flood of concurrent opens the per-key watch limit holds: of 50
// streams of 3 addresses against a limit of 10, exactly 3 open.
func TestWatchLimitUnderFlood(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	h := start(t, st, notify.Options{MaxWatch: 3, MaxWatchPerKey: 10, MaxStreamsPerKey: 1000})
	three := store.ActionFilter{WatchAccounts: []string{syntheticAddress(1), syntheticAddress(2), syntheticAddress(3)}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened, refused := 0, 0
	for range 50 {
		wg.Go(func() {
			s, err := h.Subscribe(context.Background(), notify.Request{Filter: three, Owner: "k"})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				require.Equal(t, apperr.RateLimited, apperr.From(err).Kind)
				refused++
				return
			}
			opened++
			t.Cleanup(s.Close)
		})
	}
	wg.Wait()
	require.Equal(t, 3, opened)
	require.Equal(t, 47, refused)
}
