package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PostgresNode is one server of a private cluster a test started.
type PostgresNode struct {
	t    testing.TB
	bin  string
	dir  string
	Port int
}

// URL connects to the node's postgres database.
func (n *PostgresNode) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", n.Port)
}

// Stop stops the node at once (as a crash would), Start starts it again.
func (n *PostgresNode) Stop() { n.ctl("stop", "-m", "immediate") }

// Start starts the node and waits until it accepts connections.
func (n *PostgresNode) Start() { n.ctl("start", "-w", "-t", "60", "-l", filepath.Join(n.dir, "log")) }

func (n *PostgresNode) ctl(args ...string) {
	n.t.Helper()
	if out, err := asPostgres(filepath.Join(n.bin, "pg_ctl"), append([]string{"-D", n.dir}, args...)...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(n.dir, "log"))
		n.t.Fatalf("pg_ctl %v: %v\n%s\n%s", args, err, out, log)
	}
}

// ReplicatedPostgres starts a private Postgres primary and one streaming
// replica of it (pg_basebackup -R), each on a free port in a temporary
// directory, with the Postgres binaries installed on the machine; both are
// stopped when the test ends. It skips (or fails under
// TEST_REQUIRE_SERVICES=1) when the binaries are missing.
func ReplicatedPostgres(t testing.TB) (primary, replica *PostgresNode) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		missing(t, "TEST_REQUIRE_SERVICES", "Postgres server binaries (/usr/lib/postgresql/*/bin) not installed")
		return nil, nil
	}
	bin := filepath.Dir(bins[len(bins)-1])
	root, err := os.MkdirTemp("", "tonql-pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := chownToPostgres(root); err != nil {
		t.Fatal(err)
	}
	primary = &PostgresNode{t: t, bin: bin, dir: filepath.Join(root, "primary"), Port: freePort(t)}
	if out, err := asPostgres(filepath.Join(bin, "initdb"), "-D", primary.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n"+
		"wal_level = replica\nmax_wal_senders = 4\nhot_standby = on\nfsync = off\nshared_buffers = 32MB\n", primary.Port, root)
	appendFile(t, filepath.Join(primary.dir, "postgresql.conf"), conf)
	appendFile(t, filepath.Join(primary.dir, "pg_hba.conf"), "host replication all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n")
	primary.Start()
	t.Cleanup(func() {
		_ = asPostgres(filepath.Join(bin, "pg_ctl"), "-D", primary.dir, "stop", "-m", "immediate").Run()
	})

	replica = &PostgresNode{t: t, bin: bin, dir: filepath.Join(root, "replica"), Port: freePort(t)}
	if out, err := asPostgres(filepath.Join(bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port),
		"-U", "postgres", "-D", replica.dir, "-R", "-X", "stream").CombinedOutput(); err != nil {
		t.Fatalf("pg_basebackup: %v\n%s", err, out)
	}
	appendFile(t, filepath.Join(replica.dir, "postgresql.conf"), fmt.Sprintf("port = %d\n", replica.Port))
	replica.Start()
	t.Cleanup(func() {
		_ = asPostgres(filepath.Join(bin, "pg_ctl"), "-D", replica.dir, "stop", "-m", "immediate").Run()
	})
	return primary, replica
}

// asPostgres runs a Postgres tool as the postgres user when the test runs
// as root (the server refuses to run as root), else as the current user.
func asPostgres(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

func chownToPostgres(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

func appendFile(t testing.TB, path, text string) {
	t.Helper()
	// The file belongs to the postgres user; append through it.
	cmd := asPostgres("sh", "-c", "cat >> "+shellQuote(path))
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("append to %s: %v\n%s", path, err, out)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// freePort asks the kernel for a port nobody listens on.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// WaitFor polls cond until it holds or the time is up.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
