package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// loadSubscribers is how many SSE clients TestStreamLoad connects.
const loadSubscribers = 1000

// TestStreamLoad: 1,000 SSE subscribers (a quarter unfiltered, a quarter
// by type, half by account) on one `tonql serve` over loopback, while this
// process imports every fixture file by file, one commit each. Every
// subscriber must receive exactly the actions /api/v3/actions then
// returns for its filter. It logs the server's memory per idle subscriber
// (resident set growth over 1,000 open idle streams) and the delay from
// each commit to each client's receipt of its events (docs/PERFORMANCE.md).
func TestStreamLoad(t *testing.T) {
	files := fixtureFiles(t)
	work := t.TempDir()
	bin := buildTonql(t, work)
	accounts := busyAccounts(t, files, loadSubscribers/2)
	urls := map[string]string{"sqlite": "sqlite:" + filepath.Join(work, "load.db")}
	if u := testenv.NewPostgresDatabase(t); u != "" {
		urls["postgres"] = u
	}
	for name, dbURL := range urls {
		t.Run(name, func(t *testing.T) {
			st := storetest.Open(t, dbURL)
			committed := map[uint64]time.Time{}
			var mu sync.Mutex
			var burstEnd uint64 // the last seq of the burst's commits
			st.OnActionsCommitted(func(last uint64) {
				mu.Lock()
				committed[last] = time.Now()
				mu.Unlock()
			})
			env := append(os.Environ(), "DATABASE_URL="+dbURL, "REDIS_URL=", "MAX_STREAMS=2000", "MAX_STREAMS_PER_ADDRESS=2000")
			base, server := startKillable(t, bin, env)
			warm(t, base)
			before := rssKB(t, server.Process.Pid)

			filters := make([]url.Values, loadSubscribers)
			clients := make([]*loadClient, loadSubscribers)
			for i := range filters {
				switch {
				case i%4 == 0:
					filters[i] = url.Values{}
				case i%4 == 1:
					filters[i] = url.Values{"action_type": {[]string{"TonTransfer", "JettonTransfer", "NftItemTransfer", "ContractDeploy"}[i/4%4]}}
				default:
					filters[i] = url.Values{"account": {accounts[i/2%len(accounts)]}}
				}
			}
			var wg sync.WaitGroup
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					clients[i] = openLoadClient(t, base, filters[i].Encode())
				}()
				if i%50 == 49 {
					wg.Wait() // connect in waves, as a listen backlog allows
				}
			}
			wg.Wait()
			for _, c := range clients {
				require.NotNil(t, c)
			}
			time.Sleep(2 * time.Second) // idle
			after := rssKB(t, server.Process.Pid)
			perSub := float64(after-before) / loadSubscribers
			t.Logf("server RSS %d KiB idle, %d KiB with %d idle streams: %.1f KiB per idle subscriber", before, after, loadSubscribers, perSub)

			// A burst (files back to back), then quiet commits (one file
			// every 300 ms, each fanned out before the next).
			im := ingest.New(st)
			quiet := len(files) - 10
			start := time.Now()
			for i, f := range files {
				if i >= quiet {
					time.Sleep(300 * time.Millisecond)
				}
				_, err := im.ImportFile(context.Background(), f)
				require.NoError(t, err, f)
				if i == quiet-1 {
					mu.Lock()
					for seq := range committed {
						burstEnd = max(burstEnd, seq)
					}
					mu.Unlock()
				}
			}
			importTook := time.Since(start)

			mu.Lock()
			commits := make([]uint64, 0, len(committed))
			for seq := range committed {
				commits = append(commits, seq)
			}
			mu.Unlock()
			slices.Sort(commits)
			var lat, quietLat []time.Duration
			total := 0
			for i, c := range clients {
				wantIDs := restIDs(t, base, filters[i].Encode())
				got, complete := c.await(t, wantIDs)
				if !complete {
					t.Fatalf("subscriber %d (%s) got %d of %d events; %s", i, filters[i].Encode(), len(got), len(wantIDs), lost(t, st, wantIDs, got))
				}
				total += len(wantIDs)
				for _, ev := range got {
					k := sort.Search(len(commits), func(j int) bool { return commits[j] >= ev.seq })
					require.Less(t, k, len(commits), "event after every commit")
					d := ev.at.Sub(committed[commits[k]])
					if commits[k] > burstEnd {
						quietLat = append(quietLat, d)
					} else {
						lat = append(lat, d)
					}
				}
			}
			t.Logf("%d subscribers got %d events (each its exact /api/v3/actions set) from %d commits in %s",
				loadSubscribers, total, len(commits), importTook.Round(time.Millisecond))
			t.Logf("commit -> client during the burst: %s", percentiles(lat))
			t.Logf("commit -> client, quiet commits: %s", percentiles(quietLat))
		})
	}
}

func fixtureFiles(t *testing.T) []string {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	return append(files, traces...)
}

// busyAccounts are up to n accounts that take part in the most actions of
// the fixtures (from a scratch import).
func busyAccounts(t *testing.T, files []string, n int) []string {
	st := storetest.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "scratch.db"))
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), files, func(p string, _ ingest.Stats, err error) {
		require.NoError(t, err, p)
	}))
	var accs []string
	require.NoError(t, st.DB().NewRaw("SELECT account FROM action_accounts GROUP BY account ORDER BY count(*) DESC, account LIMIT ?", n).
		Scan(context.Background(), &accs))
	return accs
}

func warm(t *testing.T, base string) {
	for range 20 {
		resp, err := http.Get(base + "/api/v3/actions?limit=5")
		require.NoError(t, err)
		resp.Body.Close()
	}
}

func rssKB(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// restIDs are the ids of the actions /api/v3/actions returns for query.
func restIDs(t *testing.T, base, query string) []string {
	var ids []string
	for offset := 0; ; offset += 1000 {
		resp, err := http.Get(base + "/api/v3/actions?" + query + "&limit=1000&offset=" + strconv.Itoa(offset))
		require.NoError(t, err)
		var page struct {
			Actions []struct {
				ActionID string `json:"action_id"`
			} `json:"actions"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
		resp.Body.Close()
		for _, a := range page.Actions {
			ids = append(ids, a.ActionID)
		}
		if len(page.Actions) < 1000 {
			return ids
		}
	}
}

// lost names what a subscriber missed: each action /api/v3/actions has
// and the stream did not send, with its seq, type, end_lt and trace, and
// the seqs the subscriber got either side of it (a gap the hub skipped
// shows as neighbours around an unsent seq); and what it got that the
// route does not have.
func lost(t *testing.T, st *store.Store, want []string, got []streamEvent) string {
	have := map[string]bool{}
	seqs := make([]uint64, 0, len(got))
	for _, ev := range got {
		have[ev.id] = true
		seqs = append(seqs, ev.seq)
	}
	slices.Sort(seqs)
	var missing []string
	wanted := map[string]bool{}
	for _, id := range want {
		wanted[id] = true
		if !have[id] {
			missing = append(missing, id)
		}
	}
	var b strings.Builder
	if len(missing) > 0 {
		var rows []struct {
			ActionID string `bun:"action_id"`
			Seq      int64  `bun:"seq"`
			Type     string `bun:"type"`
			EndLt    int64  `bun:"end_lt"`
			TraceID  string `bun:"trace_id"`
		}
		require.NoError(t, st.DB().NewRaw("SELECT action_id, seq, type, end_lt, trace_id FROM actions WHERE action_id IN (?) ORDER BY seq",
			bun.In(missing)).Scan(context.Background(), &rows))
		fmt.Fprintf(&b, "missed %d:", len(missing))
		for _, r := range rows {
			k := sort.Search(len(seqs), func(j int) bool { return seqs[j] >= uint64(r.Seq) })
			var before, after uint64
			if k > 0 {
				before = seqs[k-1]
			}
			if k < len(seqs) {
				after = seqs[k]
			}
			fmt.Fprintf(&b, " [action %s seq %d %s end_lt %d trace %s; got seqs %d before, %d after]", r.ActionID, r.Seq, r.Type, r.EndLt, r.TraceID, before, after)
		}
	}
	var extra []string
	for _, ev := range got {
		if !wanted[ev.id] {
			extra = append(extra, fmt.Sprintf("%s (seq %d)", ev.id, ev.seq))
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, "; got %d the route does not have: %s", len(extra), strings.Join(extra, ", "))
	}
	return b.String()
}

// loadClient is a stream whose events are awaited in bulk.
type loadClient struct{ *sseClient }

func openLoadClient(t *testing.T, base, query string) *loadClient {
	return &loadClient{openStream(t, base+"/api/v3/actions/stream?"+query, "", 4096)}
}

// await returns the client's events once every one of want came,
// failing on duplicates; complete is false when they stopped coming
// before (what came is returned, for the report of what is missing).
func (c *loadClient) await(t *testing.T, want []string) (out []streamEvent, complete bool) {
	left := make(map[string]bool, len(want))
	for _, id := range want {
		left[id] = true
	}
	seen := map[string]bool{}
	for len(left) > 0 {
		select {
		case ev, ok := <-c.evs:
			if !ok {
				t.Logf("stream ended after %d events", len(out))
				return out, false
			}
			require.False(t, seen[ev.id], "%s twice", ev.id)
			seen[ev.id] = true
			delete(left, ev.id)
			out = append(out, ev)
		case <-time.After(time.Minute):
			return out, false
		}
	}
	return out, true
}

func percentiles(d []time.Duration) string {
	if len(d) == 0 {
		return "no events"
	}
	slices.Sort(d)
	r := func(x time.Duration) time.Duration { return x.Round(100 * time.Microsecond) }
	return fmt.Sprintf("%d events, p50 %s, p99 %s, max %s", len(d), r(d[len(d)/2]), r(d[len(d)*99/100]), r(d[len(d)-1]))
}
