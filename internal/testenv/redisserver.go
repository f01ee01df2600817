package testenv

import (
	"bufio"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisServer is a private redis-server a test starts, kills and restarts
// (fault tests must not kill the shared one). It keeps nothing on disk,
// like the CI's: a killed server comes back empty.
type RedisServer struct {
	Addr string
	t    testing.TB
	bin  string
	port int
	cmd  *exec.Cmd
}

// StartRedis starts redis-server on a free port; it is killed when the
// test ends. Without the binary the test is skipped (failed under
// TEST_REQUIRE_SERVICES=1).
func StartRedis(t testing.TB) *RedisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		missing(t, "TEST_REQUIRE_SERVICES", "redis-server not installed; fault test skipped")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &RedisServer{Addr: "127.0.0.1:" + strconv.Itoa(port), t: t, bin: bin, port: port}
	s.Start()
	t.Cleanup(s.Kill)
	return s
}

// Start (re)starts the server and waits until it answers PING.
func (s *RedisServer) Start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(s.port),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	for range 500 {
		if s.ping() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("redis-server on %s did not answer", s.Addr)
}

// Kill ends the server with SIGKILL, as a crash would, and waits for it.
func (s *RedisServer) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

func (s *RedisServer) ping() bool {
	c, err := net.DialTimeout("tcp", s.Addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}
