package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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
			first := openStream(t, base+"/api/v3/actions/stream", "", 100_000)
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
			for _, id := range first.rest() { // what reached the client before the kill
				seen[id]++
			}
			last := first.lastID()
			t.Logf("killed the server after %d events; resuming from %s", len(seen), last)

			base, _ = startKillable(t, bin, env)
			second := openStream(t, base+"/api/v3/actions/stream", last, 100_000)
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

// storedActionIDs are the stored top-level actions: what a stream without
// supported_action_types sends (the steps of newer types are left out).
func storedActionIDs(t *testing.T, dbURL string) map[string]bool {
	st := storetest.Open(t, dbURL)
	var ids []string
	require.NoError(t, st.DB().NewRaw("SELECT action_id FROM actions WHERE parent_action_id = ''").Scan(context.Background(), &ids))
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
	// Start-up lines are log lines (stderr): read until "listening", keep
	// what came before for the failure message, then drain.
	logs, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(logs)
	re := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	var before strings.Builder
	for sc.Scan() {
		before.WriteString(sc.Text() + "\n")
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return "http://" + m[1], cmd
		}
	}
	_ = cmd.Wait()
	t.Fatalf("serve did not start: %s", before.String())
	return "", nil
}

// sseClient reads action ids from a stream, remembering the last event id
// as a browser's EventSource does.
type sseClient struct {
	evs  chan streamEvent
	mu   sync.Mutex
	last string
}

// streamEvent is an action event: its action id, its cursor's seq, and
// when it arrived.
type streamEvent struct {
	id  string
	seq uint64
	at  time.Time
}

func openStream(t *testing.T, streamURL, lastID string, capacity int) *sseClient {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, streamURL, nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	t.Cleanup(func() { resp.Body.Close() })
	c := &sseClient{evs: make(chan streamEvent, capacity), last: lastID}
	go func() {
		defer close(c.evs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		var id, action string
		var event bool
		for sc.Scan() {
			// Bytes, not Text: the data lines are kilobytes, and only the
			// action id in them is needed.
			line := sc.Bytes()
			switch {
			case len(line) == 0:
				if id != "" {
					c.mu.Lock()
					c.last = id
					c.mu.Unlock()
				}
				if event {
					c.evs <- streamEvent{id: action, seq: cursorSeq(id), at: time.Now()}
				}
				id, action, event = "", "", false
			case bytes.HasPrefix(line, []byte("id: ")):
				id = string(line[4:])
			case bytes.HasPrefix(line, []byte("data: ")):
				action, event = actionID(line[6:]), true
			}
		}
	}()
	return c
}

func (c *sseClient) next(t *testing.T) (string, bool) {
	t.Helper()
	select {
	case ev, ok := <-c.evs:
		return ev.id, ok
	case <-time.After(2 * time.Minute):
		t.Fatal("no event within 2 minutes")
		return "", false
	}
}

// rest drains what the client got before its stream broke.
func (c *sseClient) rest() []string {
	var ids []string
	for ev := range c.evs {
		ids = append(ids, ev.id)
	}
	return ids
}

// actionID reads the id of an event's action without decoding the whole
// event (the load test's 1,000 clients share the server's two cores).
func actionID(data []byte) string {
	key := []byte(`{"actions":[{"action_id":"`)
	if !bytes.HasPrefix(data, key) {
		return ""
	}
	id, _, _ := bytes.Cut(data[len(key):], []byte(`"`))
	return string(id)
}

// cursorSeq reads a stream cursor (base64url of "seq:N"); 0 if it is not one.
func cursorSeq(c string) uint64 {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimPrefix(string(b), "seq:"), 10, 64)
	return n
}

func (c *sseClient) lastID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// TestGraphQLWSClient: graphql-ws's own client (what browsers and GraphiQL
// use) subscribes over /graphql to `tonql serve` and receives the actions
// an import then writes, with their address book entries.
func TestGraphQLWSClient(t *testing.T) {
	nodeBin := node(t)
	if _, err := os.Stat(filepath.Join("node_modules", "graphql-ws")); err != nil {
		t.Skip("e2e/node_modules lacks graphql-ws (run: npm ci --prefix e2e)")
	}
	work := t.TempDir()
	bin := buildTonql(t, work)
	env := append(os.Environ(), "DATABASE_URL=sqlite:"+filepath.Join(work, "tonql.db"), "REDIS_URL=")
	base, _ := startKillable(t, bin, env)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const want = 5
	cmd := exec.CommandContext(ctx, nodeBin, "subscribe.mjs", "ws"+strings.TrimPrefix(base, "http")+"/graphql",
		strconv.Itoa(want), `{"action_type":["TonTransfer"]}`)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(out)
	require.True(t, sc.Scan())
	require.Equal(t, "ready", sc.Text())
	require.Eventually(t, func() bool { return streamsOpen(t, base) == 1 }, 30*time.Second, 10*time.Millisecond)
	imp := exec.Command(bin, "import", filepath.Join(testenv.FixturesDir(t), "blocks"))
	imp.Env = env
	o, err := imp.CombinedOutput()
	require.NoError(t, err, string(o))
	var got []map[string]any
	for sc.Scan() && sc.Text() != "done" {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		require.NotContains(t, ev, "error")
		got = append(got, ev)
	}
	require.NoError(t, cmd.Wait())
	require.Len(t, got, want)
	for _, ev := range got {
		require.Equal(t, "TonTransfer", ev["type"])
		require.NotZero(t, ev["book"])
	}
}

// streamsOpen reads tonql_streams_open from /metrics.
func streamsOpen(t *testing.T, base string) int {
	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "tonql_streams_open "); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return -1
}
