// Package storetest opens migrated stores for tests. It lives apart from
// testenv, which store's own tests use, so that neither imports the other.
package storetest

import (
	"context"
	"testing"

	"github.com/tonql/tonql/store"
)

// Open connects to url (see testenv.Databases), applies every migration,
// and closes the store when the test ends. With templates on
// (RunWithTemplates), a fresh database is first made a copy of a migrated
// one, which leaves the migrations nothing to do.
func Open(t testing.TB, url string) *store.Store {
	t.Helper()
	fromMigrated(t, url)
	return open(t, url)
}

func open(t testing.TB, url string) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return st
}
