//go:build unix

package store

import (
	"database/sql/driver"
	"errors"
	"net"
	"syscall"
)

// connAlive checks a pooled Postgres connection before database/sql hands
// it out again (pgdriver's ResetSession hook). A connection whose server
// went away (restart, pg_terminate_backend, failover) has the server's
// goodbye or EOF waiting on its socket; reading it without blocking tells a
// dead connection from an idle one at the cost of one system call.
// driver.ErrBadConn makes database/sql drop it and take or open another,
// so the first request after an outage succeeds instead of failing with
// the dead connection's error.
func connAlive(c net.Conn) error {
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS: the socket below
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return driver.ErrBadConn
	}
	var (
		n       int
		readErr error
		buf     [1]byte
	)
	if err := raw.Read(func(fd uintptr) bool {
		n, readErr = syscall.Read(int(fd), buf[:])
		return true // never wait: the socket is non-blocking
	}); err != nil {
		return driver.ErrBadConn
	}
	if n == -1 && (errors.Is(readErr, syscall.EAGAIN) || errors.Is(readErr, syscall.EWOULDBLOCK)) {
		return nil // nothing to read: idle and alive
	}
	// EOF, an error, or bytes nobody asked for (the server's termination
	// notice): the connection is unusable.
	return driver.ErrBadConn
}
