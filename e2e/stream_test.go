package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// TestStreamSurvivesSIGKILL: a client streams every new action while
// `tonql import` processes load the mainnet fixtures one file at a time;
// mid-stream the server is killed with SIGKILL and started again, and the
// client reconnects with the last event id it got. The union of what it
// received equals the imported actions, none twice. On SQLite the server
// learns of the other process's commits by polling the store, on Postgres
// by NOTIFY.
func TestStreamSurvivesSIGKILL(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	files = append(files, traces...)
	work := t.TempDir()
	bin := buildTonql(t, work)
	urls := map[string]string{"sqlite": "sqlite:" + filepath.Join(work, "tonql.db")}
	if u := testenv.NewPostgresDatabase(t); u != "" {
		urls["postgres"] = u
	}
	for name, dbURL := range urls {
		t.Run(name, func(t *testing.T) {
			env := append(os.Environ(), "DATABASE_URL="+dbURL, "REDIS_URL=")
			migrate := exec.Command(bin, "migrate")
			migrate.Env = env
			out, err := migrate.CombinedOutput()
			require.NoError(t, err, string(out))

			base, server := startKillable(t, bin, env)
			first := openStream(t, base, "")
			imported := make(chan error, 1)
			go func() { imported <- importEach(bin, env, files) }()

			seen := map[string]int{}
			for len(seen) < 300 { // mid-stream
				id, ok := first.next(t)
				require.True(t, ok, "stream ended early")
				seen[id]++
			}
			require.NoError(t, server.Process.Signal(syscall.SIGKILL))
			_ = server.Wait()
			for id := range first.rest() { // what reached the client before the kill
				seen[id]++
			}
			last := first.lastID()
			t.Logf("killed the server after %d events; resuming from %s", len(seen), last)

			base, _ = startKillable(t, bin, env)
			second := openStream(t, base, last)
			require.NoError(t, <-imported)
			want := storedActionIDs(t, dbURL)
			for len(seen) < len(want) {
				id, ok := second.next(t)
				require.True(t, ok, "stream ended early")
				seen[id]++
			}
			for id, n := range seen {
				require.Equal(t, 1, n, "action %s received %d times", id, n)
				require.True(t, want[id], "action %s received but not stored", id)
			}
			require.Len(t, seen, len(want))
			t.Logf("%d actions imported by %d processes, each received once across the kill", len(want), len(files))
		})
	}
}

func importEach(bin string, env []string, files []string) error {
	for _, f := range files {
		cmd := exec.Command(bin, "import", f)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return &importError{file: f, out: string(out), err: err}
		}
	}
	return nil
}

type importError struct {
	file, out string
	err       error
}

func (e *importError) Error() string { return e.file + ": " + e.err.Error() + ": " + e.out }

func storedActionIDs(t *testing.T, dbURL string) map[string]bool {
	st := storetest.Open(t, dbURL)
	var ids []string
	require.NoError(t, st.DB().NewRaw("SELECT action_id FROM actions").Scan(context.Background(), &ids))
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// startKillable runs `tonql serve` on a free port; the test may kill it.
func startKillable(t *testing.T, bin string, env []string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-listen", "127.0.0.1:0", "-rate-limit", "0")
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	re := regexp.MustCompile(`listening on (\S+)`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return "http://" + m[1], cmd
		}
	}
	t.Fatal("serve did not start")
	return "", nil
}

// sseClient reads action ids from a stream, remembering the last event id
// as a browser's EventSource does.
type sseClient struct {
	ids  chan string
	mu   sync.Mutex
	last string
}

func openStream(t *testing.T, base, lastID string) *sseClient {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/api/v3/actions/stream", nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	t.Cleanup(func() { resp.Body.Close() })
	c := &sseClient{ids: make(chan string, 100_000), last: lastID}
	go func() {
		defer close(c.ids)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var id, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if id != "" {
					c.mu.Lock()
					c.last = id
					c.mu.Unlock()
				}
				if data != "" {
					var page struct {
						Actions []struct {
							ActionID string `json:"action_id"`
						} `json:"actions"`
					}
					if json.Unmarshal([]byte(data), &page) == nil && len(page.Actions) == 1 {
						c.ids <- page.Actions[0].ActionID
					}
				}
				id, data = "", ""
			case strings.HasPrefix(line, "id: "):
				id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return c
}

func (c *sseClient) next(t *testing.T) (string, bool) {
	t.Helper()
	select {
	case id, ok := <-c.ids:
		return id, ok
	case <-time.After(2 * time.Minute):
		t.Fatal("no event within 2 minutes")
		return "", false
	}
}

// rest drains what the client got before its stream broke.
func (c *sseClient) rest() <-chan string { return c.ids }

func (c *sseClient) lastID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}
