package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Database is one backend a store test runs on.
type Database struct {
	Name string // "sqlite" or "postgres"
	URL  string // a DATABASE_URL for store.Open
}

// Databases returns a fresh SQLite file and, when Postgres is available, a
// freshly created Postgres database; both are removed when the test ends.
// Store tests run one body over each.
func Databases(t testing.TB) []Database {
	t.Helper()
	dbs := []Database{{Name: "sqlite", URL: "sqlite:" + filepath.Join(t.TempDir(), "tonql.db")}}
	if u := NewPostgresDatabase(t); u != "" {
		dbs = append(dbs, Database{Name: "postgres", URL: u})
	}
	return dbs
}

// NewPostgresDatabase creates a database of our own on the TEST_PG_DSN
// server and drops it after the test; the shared databases are never
// touched. Returns "" (after logging) when Postgres is not configured and
// not required.
func NewPostgresDatabase(t testing.TB) string {
	t.Helper()
	dsn := optionalPostgres(t)
	if dsn == "" {
		return ""
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tonql_test_" + hex.EncodeToString(b[:])
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
		admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("TEST_PG_DSN: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

func optionalPostgres(t testing.TB) string {
	t.Helper()
	dsn := getenv("TEST_PG_DSN")
	if dsn == "" {
		if getenv("TEST_REQUIRE_SERVICES") == "1" {
			t.Fatalf("TEST_PG_DSN not set (required by TEST_REQUIRE_SERVICES=1)")
		}
		t.Log("TEST_PG_DSN not set: Postgres half of this test skipped")
	}
	return dsn
}
