package main

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/sqliteshim"

	"github.com/tonql/tonql/internal/testenv"
)

// keysReaders are the keys commands that need a database to be there.
var keysReaders = [][]string{
	{"keys", "list"},
	{"keys", "usage", strings.Repeat("ab", 32)},
	{"keys", "revoke", strings.Repeat("ab", 32)},
	{"keys", "limit", strings.Repeat("ab", 32), "--rate", "1"},
}

// Commands that read keys never create a database: with none at the
// default path (relative to the working folder), or at a path given, they
// fail naming the database they looked for and leave nothing behind.
func TestKeysReadersCreateNoDatabase(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	nested := filepath.Join(dir, "nested", "tonql.db")
	for _, vars := range []map[string]string{nil, {"DATABASE_URL": "sqlite:" + nested}} {
		want := "no database at DATABASE_URL=sqlite:./data/tonql.db"
		if vars != nil {
			want = "no database at DATABASE_URL=sqlite:" + nested
		}
		for _, args := range keysReaders {
			code, stdout, stderr := runCmd(vars, args...)
			require.Equal(t, 1, code, "%v: %s%s", args, stdout, stderr)
			require.Contains(t, stderr, want, args)
			require.Contains(t, stderr, "tonql migrate", args)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, entries, "%v left files behind", args)
		}
	}
}

// A Postgres database that does not exist is named with its password
// hidden.
func TestKeysReadersMissingPostgres(t *testing.T) {
	u, err := url.Parse(testenv.PostgresDSN(t))
	require.NoError(t, err)
	u.Path = "/tonql_never_created_db"
	u.User = url.UserPassword(u.User.Username(), "hunter2")
	code, _, stderr := runCmd(map[string]string{"DATABASE_URL": u.String()}, "keys", "list")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no database at DATABASE_URL=")
	require.Contains(t, stderr, "tonql_never_created_db")
	require.NotContains(t, stderr, "hunter2")
}

// A database that exists but holds no tonql tables, or lacks a migration,
// is reported as such and left as it was (not migrated by a reader).
func TestKeysReadersRefuseUnmigratedDatabase(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			vars := map[string]string{"DATABASE_URL": db.URL}
			if strings.HasPrefix(db.URL, "sqlite:") {
				// An empty SQLite database (as sqlite3 leaves one).
				raw := openRaw(t, db.URL)
				_, err := raw.Exec("CREATE TABLE other (x INTEGER)")
				require.NoError(t, err)
			}
			for _, args := range keysReaders {
				code, _, stderr := runCmd(vars, args...)
				require.Equal(t, 1, code, stderr)
				require.Contains(t, stderr, "is not ready for this tonql", args)
				require.Contains(t, stderr, "holds no tonql tables", args)
			}
			require.Equal(t, 0, countTables(t, db.URL, "bun_migrations"), "a reader created the migrations table")

			// Migrated, then one migration undone: named.
			code, _, stderr := runCmd(vars, "migrate")
			require.Equal(t, 0, code, stderr)
			code, stdout, stderr := runCmd(vars, "keys", "list")
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stdout, "ID")
			raw := openRaw(t, db.URL)
			_, err := raw.Exec("DELETE FROM bun_migrations WHERE name = '20261126000005'")
			require.NoError(t, err)
			code, _, stderr = runCmd(vars, "keys", "list")
			require.Equal(t, 1, code)
			require.Regexp(t, `1 of [0-9]+ migrations not applied \(first 20261126000005_action_seq\)`, stderr)
			require.Contains(t, stderr, "run 'tonql migrate' first")
		})
	}
}

// openRaw opens a test database without tonql's store.
func openRaw(t *testing.T, dbURL string) *sql.DB {
	t.Helper()
	driver, dsn := sqliteshim.ShimName, strings.TrimPrefix(dbURL, "sqlite:")
	if strings.HasPrefix(dbURL, "postgres") {
		driver, dsn = "pg", dbURL
	}
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func countTables(t *testing.T, dbURL, name string) int {
	t.Helper()
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1"
	if strings.HasPrefix(dbURL, "postgres") {
		q = "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = $1"
	}
	var n int
	require.NoError(t, openRaw(t, dbURL).QueryRowContext(context.Background(), q, name).Scan(&n))
	return n
}
