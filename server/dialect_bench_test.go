package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// BenchmarkToncenterDialectPage measures the same page of actions (the
// newest 100 of the imported fixtures: 77 toncenter traces and 7 blocks)
// in our shape (/api/v3/actions) and in toncenter's dialect
// (/toncenter/api/v3/actions); docs/PERFORMANCE.md has the ratio. Set
// TEST_PG_DSN to run it on Postgres as well.
func BenchmarkToncenterDialectPage(b *testing.B) {
	dir := testenv.FixturesDir(b)
	files, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	blocks, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, blocks...)
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the access log is not what is measured
	for _, db := range testenv.Databases(b) {
		st := storetest.Open(b, db.URL)
		if err := ingest.New(st).ImportFiles(context.Background(), files, func(path string, _ ingest.Stats, err error) {
			if err != nil {
				b.Fatal(path, err)
			}
		}); err != nil {
			b.Fatal(err)
		}
		h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
		for _, route := range []struct{ name, path string }{
			{"ours", "/api/v3/actions?limit=100"},
			{"toncenter", "/toncenter/api/v3/actions?limit=100"},
		} {
			b.Run(db.Name+"/"+route.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, route.path, nil))
					if rec.Code != http.StatusOK {
						b.Fatal(rec.Code, rec.Body.String())
					}
				}
			})
		}
	}
}
