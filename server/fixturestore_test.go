package server_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tokens"
)

// TestMain runs the tests with storetest's templates: each store is a
// copy of one migrated (or imported: importedFixtures) once per run.
func TestMain(m *testing.M) {
	os.Exit(storetest.RunWithTemplates(m))
}

// importedFixtures returns a store of the test's own on db (a database of
// testenv.Databases, not yet opened) holding files imported by
// ingest.ImportFiles. The import runs once per package run, database kind
// and import (files, how); every caller gets a copy (see
// storetest.Imported), so a test may write to its store.
func importedFixtures(t testing.TB, db testenv.Database, files []string) *store.Store {
	t.Helper()
	return imported(t, db, fixtureImport{files: files})
}

// importedWithTokens is importedFixtures with the token registry on
// (ingest's Tokens hook), as the server's importer runs it.
func importedWithTokens(t testing.TB, db testenv.Database, files []string) *store.Store {
	t.Helper()
	return imported(t, db, fixtureImport{files: files, tokens: true})
}

// importedFile is importedFixtures for one file imported by
// ingest.ImportFile, with the token registry on if tokens.
func importedFile(t testing.TB, db testenv.Database, path string, tokens bool) *store.Store {
	t.Helper()
	return imported(t, db, fixtureImport{files: []string{path}, tokens: tokens, one: true})
}

// fixtureImport is how a template is imported.
type fixtureImport struct {
	files  []string
	tokens bool // the token registry on
	one    bool // ImportFile (one file), not ImportFiles
}

func imported(t testing.TB, db testenv.Database, fi fixtureImport) *store.Store {
	t.Helper()
	key := fmt.Sprintf("tokens=%v one=%v\n%s", fi.tokens, fi.one, strings.Join(fi.files, "\n"))
	return storetest.Imported(t, db.URL, key, func(st *store.Store) error {
		im := ingest.New(st)
		if fi.tokens {
			im.Tokens = tokens.ForStore(st, nil).Hook
		}
		if fi.one {
			_, err := im.ImportFile(context.Background(), fi.files[0])
			return err
		}
		var first error
		err := im.ImportFiles(context.Background(), fi.files, func(path string, _ ingest.Stats, err error) {
			if err != nil && first == nil {
				first = fmt.Errorf("%s: %w", path, err)
			}
		})
		if first != nil {
			return first
		}
		return err
	})
}
