package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
)

// TestClientsAgainstBinary builds tonql, loads the fee-replay block with
// `tonql import` and runs the clients against `tonql serve` exactly as
// shipped (its wall clock, its middleware, its cache wiring). The block's
// wallet message has expired by now, which both clients must report as the
// contract's refusal; deployments and bad input behave as in-process.
func TestClientsAgainstBinary(t *testing.T) {
	nodeBin := node(t)
	fixture := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	raw, err := os.ReadFile(fixture)
	require.NoError(t, err)
	_, msgs, err := fees.ReplayExternals(raw)
	require.NoError(t, err)

	dir := t.TempDir()
	bin := buildTonql(t, dir)
	env := append(os.Environ(), "DATABASE_URL=sqlite:"+filepath.Join(dir, "tonql.db"), "REDIS_URL=")
	imp := exec.Command(bin, "import", fixture)
	imp.Env = env
	out, err := imp.CombinedOutput()
	require.NoError(t, err, string(out))

	base := startBinary(t, bin, env)
	a := runClients(t, nodeBin, base+"/api/v2/jsonRPC", inlineWallet(t, msgs))
	a.failed("wallet/ton", "exit code")
	a.failed("wallet/tonweb", "exit code")
	t.Logf("expired wallet message, as tonweb shows it: %s", a.get("wallet/tonweb").Error)
	a.checkDeploysAndErrors(base)
}

func buildTonql(t *testing.T, dir string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "tonql")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/tonql")
	cmd.Dir = ".." // the module root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// startBinary runs `tonql serve` on a free port and returns its base URL;
// the process gets SIGTERM when the test ends and must exit cleanly.
func startBinary(t *testing.T, bin string, env []string) string {
	t.Helper()
	base, _ := startBinaryStoppable(t, bin, env)
	return base
}

// startBinaryStoppable is startBinary with a stop function that sends
// SIGTERM and waits for a clean exit (idempotent; the test's end calls it
// too).
func startBinaryStoppable(t *testing.T, bin string, env []string) (string, func()) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-listen", "127.0.0.1:0", "-rate-limit", "0")
	cmd.Env = env
	// Start-up lines are log lines, as is one line per request: read the
	// log stream until "listening", then drain it.
	logs, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan struct{}) // closed when the process is gone; waitErr then holds how
	var waitErr error
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // nobody reads after start-up
			}
		}
		waitErr = cmd.Wait()
		close(exited)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
				require.NoError(t, waitErr, "serve exit")
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Error("serve did not stop on SIGTERM")
			}
		})
	}
	t.Cleanup(stop)
	re := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l := <-lines:
			if m := re.FindStringSubmatch(l); m != nil {
				return "http://" + m[1], stop
			}
		case <-exited:
			t.Fatalf("serve exited: %v", waitErr)
		case <-timeout:
			t.Fatal("serve did not start")
		}
	}
}
