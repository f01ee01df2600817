// Package cachetest starts a private, throwaway redis-server for tests that
// must stop Redis mid-run (the shared TEST_REDIS_ADDR server must never be
// stopped by a test).
package cachetest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server process owned by one test.
type Server struct {
	Addr string
	t    testing.TB
	args []string
	cmd  *exec.Cmd
}

// StartRedis runs redis-server on a free local port without persistence.
// Without the binary the test is skipped (failed under TEST_REQUIRE_SERVICES=1).
func StartRedis(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("TEST_REQUIRE_SERVICES") == "1" {
			t.Fatal("redis-server not found (required by TEST_REQUIRE_SERVICES=1)")
		}
		t.Skip("redis-server not found; private Redis tests skipped")
	}
	port := FreePort(t)
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), t: t,
		args: []string{bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", t.TempDir()}}
	t.Cleanup(s.Stop)
	s.Restart()
	return s
}

// Restart starts the server again on its port, empty (as a crashed Redis
// without persistence comes back), and waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.cmd = exec.Command(s.args[0], s.args[1:]...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	for i := 0; ; i++ {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		if i == 200 {
			s.t.Fatal("private redis-server did not come up")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop kills the server with SIGKILL, as a crash would (idempotent), and
// waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil || s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// FreePort returns a local TCP port nobody listens on (now).
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
