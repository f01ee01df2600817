package store

import (
	"context"
	"database/sql/driver"
	"io"

	"github.com/uptrace/bun/driver/pgdriver"
)

// bun's pgdriver bounds a statement by its context's deadline but does
// not watch for the context being cancelled: a request whose client went
// away kept its query, its goroutine and a pooled connection until the
// answer came or the request's own deadline passed (20 s by default),
// while the pool's other requests waited for a connection. cancelConnector
// closes the connection of a statement whose context ends first: the
// blocked read returns at once, the statement answers the context's error,
// and the pool drops the closed connection (pgdriver.Conn.IsValid). The
// backend notices the closed socket when it next writes; statement_timeout
// bounds one that never does (store.go).
//
// Closing, not a cancel request: pgdriver keeps the backend's key private,
// and a closed connection cannot be handed out again half-read.
//
// COPY needs the driver's own connection (pgdriver.CopyFrom type-asserts
// it), so the transactions that COPY run on a pool of unwrapped
// connections (Store.copyDB).
//
// The same watch times each statement for the request's QueryTime.
type cancelConnector struct{ driver.Connector }

func (c cancelConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelConn{cn.(*pgdriver.Conn)}, nil
}

// cancelConn is a pgdriver connection whose statements end with their
// context. The methods not written here (Begin, Ping, IsValid,
// ResetSession, Close) are pgdriver's.
type cancelConn struct{ *pgdriver.Conn }

var (
	_ driver.QueryerContext     = (*cancelConn)(nil)
	_ driver.ExecerContext      = (*cancelConn)(nil)
	_ driver.ConnPrepareContext = (*cancelConn)(nil)
	_ driver.Validator          = (*cancelConn)(nil)
	_ driver.SessionResetter    = (*cancelConn)(nil)
)

// watch closes the connection if ctx ends before the returned done is
// called; done tells whether it did (then the connection is closed, and
// a statement's error is the context's).
func (c *cancelConn) watch(ctx context.Context) (done func() (interrupted bool)) {
	timed := startStatement(ctx)
	if ctx.Done() == nil {
		return func() bool { timed(); return false }
	}
	stop := context.AfterFunc(ctx, func() { _ = c.Conn.Close() })
	ended, interrupted := false, false
	return func() bool {
		if !ended {
			ended = true
			timed()
			// When stop fails the close has started, or ran: finish it
			// here, so the pool never takes the connection back while it
			// is still open (Close is idempotent).
			if interrupted = !stop(); interrupted {
				_ = c.Conn.Close()
			}
		}
		return interrupted
	}
}

// finish ends a watch: an interrupted statement answers ctx's error
// rather than the closed socket's.
func finish(ctx context.Context, done func() bool, err error) error {
	if done() && err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func (c *cancelConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	done := c.watch(ctx)
	rows, err := c.Conn.QueryContext(ctx, query, args)
	if err != nil {
		return nil, finish(ctx, done, err)
	}
	return &cancelRows{Rows: rows, ctx: ctx, done: done}, nil
}

func (c *cancelConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	done := c.watch(ctx)
	res, err := c.Conn.ExecContext(ctx, query, args)
	return res, finish(ctx, done, err)
}

func (c *cancelConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	done := c.watch(ctx)
	st, err := c.Conn.PrepareContext(ctx, query)
	if err = finish(ctx, done, err); err != nil {
		return nil, err
	}
	return &cancelStmt{Stmt: st, conn: c}, nil
}

// cancelStmt is a prepared statement of a cancelConn: its executions are
// watched like the connection's own statements.
type cancelStmt struct {
	driver.Stmt
	conn *cancelConn
}

var (
	_ driver.StmtQueryContext = (*cancelStmt)(nil)
	_ driver.StmtExecContext  = (*cancelStmt)(nil)
)

func (s *cancelStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	done := s.conn.watch(ctx)
	rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, finish(ctx, done, err)
	}
	return &cancelRows{Rows: rows, ctx: ctx, done: done}, nil
}

func (s *cancelStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	done := s.conn.watch(ctx)
	res, err := s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	return res, finish(ctx, done, err)
}

// cancelRows keeps its statement's watch until the rows are closed: rows
// are read from the connection as they are scanned.
type cancelRows struct {
	driver.Rows
	ctx  context.Context
	done func() bool
}

func (r *cancelRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err != nil && err != io.EOF && r.ctx.Err() != nil {
		return r.ctx.Err()
	}
	return err
}

func (r *cancelRows) Close() error {
	return finish(r.ctx, r.done, r.Rows.Close())
}
