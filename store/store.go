// Package store keeps transactions, traces, actions, account states, names
// and chain configs in Postgres (production) or SQLite (the zero-setup
// default), through one bun model set.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
	"github.com/uptrace/bun/migrate"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/store/migrations"
)

// Store is safe for concurrent use.
type Store struct {
	db       *bun.DB     // the primary: every write, and reads when no replica serves
	copyDB   *bun.DB     // the primary again, for transactions that COPY (cancel.go); SQLite: db
	url      string      // the primary's, for maintenance connections (maintenance.go)
	replicas *replicaSet // nil without DATABASE_REPLICAS
	// noAnalytics skips the analytics rollups of writes: set only by the
	// benchmark that measures what keeping them costs (and by builds with
	// the tonql_noanalytics tag, noanalytics.go).
	noAnalytics bool

	mu        sync.Mutex
	committed []func(last uint64) // see OnActionsCommitted

	statements sync.Map // *sql.DB -> *statements: prepared reads per database (params.go)

	observers []func(Statement)                 // under mu; see ObserveStatements
	observed  atomic.Pointer[[]func(Statement)] // observers, read without the lock

	facts  *factsCache // the address book's facts, kept for a while; nil: read each time (factscache.go)
	tokens *tokenCache // tokens rendered, by version; nil: read whole with each page (tokencache.go)

	slotsFrom atomic.Pointer[int64] // see txSlotsFrom

	partitioned    atomic.Bool    // the chain's tables are partitioned by lt (partitions.go)
	partitionsMade map[int64]bool // lt spans whose partitions exist; under mu
}

// Open connects to "postgres://..." / "postgresql://..." or "sqlite:PATH"
// (the file and its folder are created when missing; "sqlite::memory:" is
// not supported because every pooled connection would see its own database).
func Open(ctx context.Context, url string) (*Store, error) {
	return open(ctx, url, false)
}

// open is Open, and OpenExisting when existing is set: then nothing is
// created (no SQLite file or folder) and the schema must be migrated.
func open(ctx context.Context, url string, existing bool) (*Store, error) {
	var db, copyDB *bun.DB
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		c := postgresConnector(url, 10*time.Second)
		db, copyDB = postgresPool(cancelConnector{c}), postgresPool(c)
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" || strings.HasPrefix(path, ":memory:") {
			return nil, errors.New("sqlite: a file path is required, e.g. sqlite:./data/tonql.db")
		}
		mode := ""
		if existing {
			if err := sqliteFileExists(path); err != nil {
				return nil, err
			}
			// mode=rw: should the file vanish after the check, SQLite
			// fails rather than creating an empty one.
			mode = "rw"
		} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
		var err error
		if db, err = openSQLite(path, mode); err != nil {
			return nil, err
		}
		copyDB = db
	default:
		return nil, errors.New(`DATABASE_URL must start with "postgres://", "postgresql://" or "sqlite:"`)
	}
	s := &Store{db: db, copyDB: copyDB, url: url, noAnalytics: analyticsOffByBuild,
		tokens: newTokenCache(DefaultTokenCacheBytes)}
	if err := db.PingContext(ctx); err != nil {
		s.Close()
		var pgErr pgdriver.Error
		// Postgres databases are never created here (that takes a role
		// allowed to, and the operator's choice of owner and encoding):
		// Open and OpenExisting alike say that one is missing.
		if errors.As(err, &pgErr) && pgErr.Field('C') == "3D000" { // invalid_catalog_name
			return nil, fmt.Errorf("%w: %s", ErrNoDatabase, pgErr.Field('M'))
		}
		return nil, fmt.Errorf("database unreachable: %w", err)
	}
	if existing {
		if err := s.checkMigrated(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	if err := s.detectPartitions(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openSQLite opens the file at path; mode "rw" never creates it.
func openSQLite(path, mode string) (*bun.DB, error) {
	// WAL lets readers run beside the one writer; busy_timeout makes a
	// second writer wait instead of failing.
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_journal_mode=WAL&_busy_timeout=10000&_synchronous=NORMAL"
	if mode != "" {
		dsn += "&mode=" + mode
	}
	sqldb, err := sql.Open(sqliteshim.ShimName, dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	sqldb.SetMaxOpenConns(8)
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

// DefaultMaxConns is how many connections a store keeps to each Postgres
// database unless told otherwise (LimitConnections).
const DefaultMaxConns = 32

// postgresConnector connects to a Postgres server for a pool of checked
// connections: each pooled connection is tested before reuse (a server
// restart leaves dead ones), and every statement is bounded on the server
// side. dialTimeout bounds dialing, reads and writes unless the URL sets
// its own (timeout, dial_timeout, read_timeout, write_timeout): a bulk load
// on a busy server may wait longer than 10 s for a COPY's answer.
func postgresConnector(url string, dialTimeout time.Duration) driver.Connector {
	return pgdriver.NewConnector(pgdriver.WithTimeout(dialTimeout),
		pgdriver.WithDSN(withStatementTimeout(url)),
		pgdriver.WithResetSessionFunc(func(_ context.Context, cn *pgdriver.Conn) error { return connAlive(cn.Conn()) }))
}

// openPostgres is the serving pool of a Postgres server: its connections
// also end a statement whose context is cancelled (cancel.go).
func openPostgres(url string, dialTimeout time.Duration) *bun.DB {
	return postgresPool(cancelConnector{postgresConnector(url, dialTimeout)})
}

func postgresPool(c driver.Connector) *bun.DB {
	sqldb := sql.OpenDB(c)
	sqldb.SetMaxOpenConns(DefaultMaxConns)
	sqldb.SetMaxIdleConns(DefaultMaxConns)
	return bun.NewDB(sqldb, pgdialect.New())
}

// LimitConnections caps the connections kept to each Postgres database,
// the primary and every replica added so far, at n (at least 1); requests
// beyond it wait for a connection. Every server holds its own pool, so
// servers times n must stay under the database's max_connections; and
// where the server shares its cores with Postgres, a pool near the number
// of cores keeps fewer backends contending for them (docs/OPERATIONS.md).
// SQLite keeps its own small pool.
func (s *Store) LimitConnections(n int) {
	if !s.IsPostgres() {
		return
	}
	n = max(n, 1)
	dbs := []*bun.DB{s.db, s.copyDB}
	if s.replicas != nil {
		for _, r := range s.replicas.all {
			dbs = append(dbs, r.db)
		}
	}
	for _, db := range dbs {
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
	}
}

// Close releases the connections.
func (s *Store) Close() error {
	if s.replicas != nil {
		s.replicas.close()
	}
	if s.copyDB != s.db {
		_ = s.copyDB.Close()
	}
	return s.db.Close()
}

// DB exposes the handle for tools and tests in this module (benchmark
// generators, EXPLAIN); handlers never use it.
func (s *Store) DB() *bun.DB { return s.db }

// IsPostgres tells which dialect is in use.
func (s *Store) IsPostgres() bool { return s.db.Dialect().Name() == dialect.PG }

// Ping checks the database for /readyz.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Migrate applies every pending migration under the migrator's lock, so
// several servers starting at once against one Postgres do not race.
func (s *Store) Migrate(ctx context.Context) (applied []string, err error) {
	// A migration may copy a table of millions of rows: it runs without the
	// serving pool's statement bounds.
	err = s.maintenance(ctx, 1, func(db *bun.DB) error {
		m := migrate.NewMigrator(db, migrations.New())
		if err := m.Init(ctx); err != nil {
			return fmt.Errorf("migrate init: %w", err)
		}
		if err := lockMigrations(ctx, m); err != nil {
			return fmt.Errorf("migrate lock: %w", err)
		}
		defer m.Unlock(context.WithoutCancel(ctx)) //nolint:errcheck // best effort; the lock row expires with the process otherwise
		group, err := m.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		for _, mig := range group.Migrations {
			applied = append(applied, mig.Name+"_"+mig.Comment)
		}
		return nil
	})
	if err != nil {
		return applied, err
	}
	if err := s.detectPartitions(ctx); err != nil {
		return applied, err
	}
	if err := s.ensureHeadPartitions(ctx); err != nil {
		return applied, fmt.Errorf("create partitions: %w", err)
	}
	return applied, nil
}

// lockMigrations takes the migrator's lock, waiting while another process
// holds it: a server starting while `tonql import` runs (each runs its
// migration check) must wait its turn, not fail. The lock is a row, so a
// process killed while holding it leaves it behind; after 30 s the error
// says so.
func lockMigrations(ctx context.Context, m *migrate.Migrator) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := m.Lock(ctx)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// unavailable classifies a database failure for clients. A database that
// cannot answer (connection refused or lost, server shutting down, out of
// resources, SQLite busy) is Unavailable; a timeout is Timeout; anything
// else the server rejected is our bug (bad SQL) and stays Internal.
func unavailable(err error) error {
	if err == nil {
		return nil
	}
	// pgdriver enforces a context deadline as a read deadline on the socket,
	// so a query still running when the request's time is up fails as a
	// network timeout (os.ErrDeadlineExceeded), not as DeadlineExceeded.
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.As(err, &netErr) && netErr.Timeout() {
		return apperr.Wrap(apperr.Timeout, err, "database query timed out")
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		if pgErr.StatementTimeout() {
			return apperr.Wrap(apperr.Timeout, err, "database query timed out")
		}
		switch code := pgErr.Field('C'); {
		case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "57"):
			return apperr.Wrap(apperr.Unavailable, err, "database unavailable")
		case code == "22021", code == "22P05": // NUL or bytes that are not UTF-8 in a value
			return apperr.Wrap(apperr.Invalid, err, "a value holds characters that are not text")
		}
		return apperr.Wrap(apperr.Internal, err, "internal error")
	}
	// A server stopped mid-answer ends the stream early: pgdriver reports
	// io.ErrUnexpectedEOF (a Postgres stop under load answered 500 for it).
	if errors.As(err, &netErr) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) ||
		strings.Contains(err.Error(), "database is locked") || strings.Contains(err.Error(), "connection refused") {
		return apperr.Wrap(apperr.Unavailable, err, "database unavailable")
	}
	return apperr.Wrap(apperr.Internal, err, "internal error")
}

// defaultStatementTimeout bounds every Postgres statement on the server
// side. The driver does not cancel a query whose request context ended (it
// only drops the connection), so without it a query abandoned by a request
// timeout keeps running, and holding a backend, until Postgres notices.
// A DATABASE_URL that sets statement_timeout itself keeps its own value.
const defaultStatementTimeout = "60000" // milliseconds

func withStatementTimeout(dsn string) string {
	return withParam(dsn, "statement_timeout", defaultStatementTimeout, false)
}

// withParam sets a query parameter of a database URL; one the URL has
// already is replaced only when override is set.
func withParam(dsn, key, value string, override bool) string {
	u, err := neturl.Parse(dsn)
	if err != nil || !override && u.Query().Has(key) {
		return dsn // pgdriver reports a malformed URL itself
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
