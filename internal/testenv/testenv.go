// Package testenv finds the real services and data that tests run against:
// the shared mainnet fixtures, Postgres and Redis. Absent ones skip the test
// with a printed reason, unless CI demands them (TEST_REQUIRE_FIXTURES=1,
// TEST_REQUIRE_SERVICES=1), in which case absence fails the test.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FixturesDir returns the fixtures folder: $TON_FIXTURES, else
// ../shared/fixtures beside the repository root.
func FixturesDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TON_FIXTURES")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir = filepath.Join(root, "..", "shared", "fixtures")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		missing(t, "TEST_REQUIRE_FIXTURES", "fixtures not found at "+dir+" (set TON_FIXTURES)")
	}
	return dir
}

// Fixture returns the path of one fixture file, relative to the fixtures folder.
func Fixture(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(FixturesDir(t), rel)
	if _, err := os.Stat(p); err != nil {
		missing(t, "TEST_REQUIRE_FIXTURES", "fixture missing: "+p)
	}
	return p
}

// PostgresDSN returns TEST_PG_DSN, or skips (fails under TEST_REQUIRE_SERVICES=1).
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("TEST_PG_DSN")
	if dsn == "" {
		missing(t, "TEST_REQUIRE_SERVICES", "TEST_PG_DSN not set; Postgres tests skipped")
	}
	return dsn
}

// RedisAddr returns TEST_REDIS_ADDR, or skips (fails under TEST_REQUIRE_SERVICES=1).
func RedisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("TEST_REDIS_ADDR")
	if addr == "" {
		missing(t, "TEST_REQUIRE_SERVICES", "TEST_REDIS_ADDR not set; Redis tests skipped")
	}
	return addr
}

func getenv(k string) string { return os.Getenv(k) }

func missing(t testing.TB, requireVar, why string) {
	t.Helper()
	if os.Getenv(requireVar) == "1" {
		t.Fatalf("%s (required by %s=1)", why, requireVar)
	}
	t.Skip(why)
}
