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

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
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
				want := restCount(t, base, filters[i].Encode())
				got := c.await(t, want)
				require.Len(t, got, want, "subscriber %d (%s)", i, filters[i].Encode())
				total += want
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

func restCount(t *testing.T, base, query string) int {
	n := 0
	for offset := 0; ; offset += 1000 {
		resp, err := http.Get(base + "/api/v3/actions?" + query + "&limit=1000&offset=" + strconv.Itoa(offset))
		require.NoError(t, err)
		var page struct {
			Actions []json.RawMessage `json:"actions"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
		resp.Body.Close()
		n += len(page.Actions)
		if len(page.Actions) < 1000 {
			return n
		}
	}
}

// loadClient is a stream whose events are awaited in bulk.
type loadClient struct{ *sseClient }

func openLoadClient(t *testing.T, base, query string) *loadClient {
	return &loadClient{openStream(t, base+"/api/v3/actions/stream?"+query, "", 4096)}
}

// await returns the client's events once it has n, failing on duplicates.
func (c *loadClient) await(t *testing.T, n int) []streamEvent {
	var out []streamEvent
	seen := map[string]bool{}
	for len(out) < n {
		select {
		case ev, ok := <-c.evs:
			require.True(t, ok, "stream ended after %d of %d", len(out), n)
			require.False(t, seen[ev.id], "%s twice", ev.id)
			seen[ev.id] = true
			out = append(out, ev)
		case <-time.After(2 * time.Minute):
			t.Fatalf("got %d of %d events", len(out), n)
		}
	}
	return out
}

func percentiles(d []time.Duration) string {
	if len(d) == 0 {
		return "no events"
	}
	slices.Sort(d)
	r := func(x time.Duration) time.Duration { return x.Round(100 * time.Microsecond) }
	return fmt.Sprintf("%d events, p50 %s, p99 %s, max %s", len(d), r(d[len(d)/2]), r(d[len(d)*99/100]), r(d[len(d)-1]))
}
