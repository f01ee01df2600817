package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// maintenance runs fn on a database handle for statements that may run
// for minutes: migrations that copy a table, index builds. The serving pool
// bounds every statement (statement_timeout, and a driver read timeout that
// drops a connection silent for 10 s), which is right for a request and
// wrong for converting a table of a hundred million rows. On Postgres the
// handle is one connection of its own with neither bound; a dead server is
// still noticed, by TCP keepalive, and ctx still ends the wait. SQLite has
// no such bounds: its own handle is used.
func (s *Store) maintenance(ctx context.Context, conns int, fn func(db *bun.DB) error) error {
	if !s.IsPostgres() {
		return fn(s.db)
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(
		// statement_timeout 0 (none), whatever the URL says: a limit meant
		// for serving queries must not stop a migration half way.
		withParam(s.url, "statement_timeout", "0", true)),
		pgdriver.WithDialTimeout(10*time.Second), pgdriver.WithReadTimeout(0)))
	sqldb.SetMaxOpenConns(max(1, conns))
	db := bun.NewDB(sqldb, pgdialect.New())
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return unavailable(err)
	}
	return fn(db)
}
