package store

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/uptrace/bun/dialect"
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
	return open(ctx, url, true)
}

// sqliteFileExists tells a missing database file from one that is there.
func sqliteFileExists(path string) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: file %s does not exist", ErrNoDatabase, path)
	case err != nil:
		return fmt.Errorf("sqlite: %w", err)
	case info.IsDir():
		return fmt.Errorf("%w: %s is a folder", ErrNoDatabase, path)
	}
	return nil
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
