package e2e

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/internal/testenv"
)

// Two tonql servers on one Postgres primary, its streaming replica and one
// Redis, as an operator scales out (issue 17): both answer exactly what one
// server on the primary alone answers, a key's rate limit holds across
// both, and every answered request is counted once.
func TestTwoServersOnPrimaryReplicaAndRedis(t *testing.T) {
	primary, replica := testenv.ReplicatedPostgres(t)
	if primary == nil {
		return
	}
	rdb := cachetest.StartRedis(t)
	dir := t.TempDir()
	bin := buildTonql(t, dir)
	env := func(extra ...string) []string {
		return append(append(os.Environ()[:len(os.Environ()):len(os.Environ())], "DATABASE_URL="+primary.URL()), extra...)
	}
	tonql := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env("REDIS_URL=redis://" + rdb.Addr + "/0")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "tonql %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	tonql("import", filepath.Join(testenv.FixturesDir(t), "blocks"))
	lastLine := func(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }
	limited := lastLine(tonql("keys", "create", "--name", "limited", "--rate", "0.1", "--burst", "10"))
	free := lastLine(tonql("keys", "create", "--name", "free", "--rate", "-1"))
	reference := lastLine(tonql("keys", "create", "--name", "reference", "--rate", "-1")) // the single server's

	scaled := env("DATABASE_REPLICAS="+replica.URL(), "REDIS_URL=redis://"+rdb.Addr+"/0", "REQUIRE_API_KEY=true")
	a, stopA := startBinaryStoppable(t, bin, scaled)
	b, stopB := startBinaryStoppable(t, bin, scaled)
	single := startBinary(t, bin, env("REQUIRE_API_KEY=true"))

	get := func(base, key, path string) (int, []byte) {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, body
	}
	// The replica has replayed the import and serves the reads of both.
	for _, base := range []string{a, b} {
		testenv.WaitFor(t, 30*time.Second, "the replica in use", func() bool {
			_, m := get(base, "", "/metrics")
			return bytes.Contains(m, []byte(`tonql_replica_healthy{replica="`)) &&
				!bytes.Contains(m, []byte(`tonql_replica_healthy{replica="127.0.0.1:`+strconv.Itoa(replica.Port)+`/postgres"} 0`))
		})
	}
	sent := 0
	for _, path := range []string{
		"/api/v3/actions?limit=25",
		"/api/v3/actions?limit=25&sort=asc&offset=7",
		"/api/v3/actions?limit=10&action_type=JettonTransfer,JettonSwap",
		"/api/v3/actions?limit=10&exclude_action_type=TonTransfer&include_accounts=true",
		"/graphql?query=" + strings.ReplaceAll("{actions(limit:15){actions{action_id type value} address_book}}", " ", "%20"),
	} {
		_, want := get(single, reference, path)
		require.Contains(t, string(want), "action_id", path)
		for _, base := range []string{a, b} {
			code, got := get(base, free, path)
			require.Equal(t, http.StatusOK, code, path)
			require.Equal(t, string(want), string(got), "%s on a scaled server", path)
			sent++
		}
	}

	// One limit for the key across both servers: a burst of 10 and a token
	// every 10 s, so whatever the machine's speed the two servers together
	// admit 10 plus one per 10 s elapsed, plus a lease each (1 token at
	// this rate): far under the 20 two separate buckets would give.
	start := time.Now()
	admitted := 0
	for i := range 40 {
		code, _ := get([]string{a, b}[i%2], limited, "/api/v3/actions?limit=1")
		if code == http.StatusOK {
			admitted++
		} else {
			require.Equal(t, http.StatusTooManyRequests, code)
		}
	}
	bound := 10 + int(time.Since(start).Seconds()/10) + 1 + 2
	require.GreaterOrEqual(t, admitted, 10)
	require.LessOrEqual(t, admitted, bound, "admitted %d of 40 across two servers", admitted)

	// Units: concurrent requests on both servers, then both stopped (their
	// final flush), and the store holds exactly the number answered.
	var answered atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				code, _ := get([]string{a, b}[(w+i)%2], free, "/api/v3/actions?limit=5")
				if code == http.StatusOK {
					answered.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, 400, answered.Load())
	stopA()
	stopB()
	units, err := strconv.Atoi(lastLine(tonql("keys", "usage", free))[len("units "):])
	require.NoError(t, err)
	t.Logf("admitted %d of 40 (bound %d); units %d for %d answered", admitted, bound, units, sent+400)
	require.Equal(t, sent+400, units, "units of the free key on the scaled servers")
}
