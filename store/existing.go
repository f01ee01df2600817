package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/migrate"

	"github.com/tonql/tonql/store/migrations"
)

// ErrNoDatabase is a database that does not exist (a missing SQLite file, a
// Postgres database never created).
var ErrNoDatabase = errors.New("no database there")

// ErrNotMigrated is a database that exists but lacks some of this binary's
// migrations (or has none of tonql's tables).
var ErrNotMigrated = errors.New("database not migrated")

// OpenExisting opens a database that tonql has created and fully migrated,
// and never creates or migrates one: for commands that read, or change
// rows of, a database that must already be there (`keys list`). Unlike
// Open it leaves no file behind when there is nothing to open.
func OpenExisting(ctx context.Context, url string) (*Store, error) {
	var db *bun.DB
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db = openPostgres(url, 10*time.Second)
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" || strings.HasPrefix(path, ":memory:") {
			return nil, errors.New("sqlite: a file path is required, e.g. sqlite:./data/tonql.db")
		}
		info, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: file %s does not exist", ErrNoDatabase, path)
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
		if info.IsDir() {
			return nil, fmt.Errorf("%w: %s is a folder", ErrNoDatabase, path)
		}
		// mode=rw: should the file vanish after the check, SQLite fails
		// rather than creating an empty one.
		if db, err = openSQLite(path, "rw"); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New(`DATABASE_URL must start with "postgres://", "postgresql://" or "sqlite:"`)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		var pgErr pgdriver.Error
		if errors.As(err, &pgErr) && pgErr.Field('C') == "3D000" { // invalid_catalog_name
			return nil, fmt.Errorf("%w: %s", ErrNoDatabase, pgErr.Field('M'))
		}
		return nil, fmt.Errorf("database unreachable: %w", err)
	}
	s := &Store{db: db}
	if err := s.checkMigrated(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.detectPartitions(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkMigrated reads the migrations table without creating it (the
// migrator's Init would).
func (s *Store) checkMigrated(ctx context.Context) error {
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bun_migrations'"
	if s.db.Dialect().Name() == dialect.PG {
		q = "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = 'bun_migrations' AND schemaname = ANY(current_schemas(false))"
	}
	var n int
	if err := s.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("%w: it holds no tonql tables", ErrNotMigrated)
	}
	ms, err := migrate.NewMigrator(s.db, migrations.New()).MigrationsWithStatus(ctx)
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	if pending := ms.Unapplied(); len(pending) > 0 {
		return fmt.Errorf("%w: %d of %d migrations not applied (first %s_%s)", ErrNotMigrated,
			len(pending), len(ms), pending[0].Name, pending[0].Comment)
	}
	return nil
}
