package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// BenchmarkActionsHot measures one /api/v3/actions request end to end in
// process against a database loaded by cmd/loadgen (TONQL_BENCH_DB, e.g.
// the 1M-action Postgres of docs/PERFORMANCE.md) and its hot account
// (TONQL_BENCH_ACCOUNT).
func BenchmarkActionsHot(b *testing.B) {
	dbURL, account := os.Getenv("TONQL_BENCH_DB"), os.Getenv("TONQL_BENCH_ACCOUNT")
	if dbURL == "" || account == "" {
		b.Skip("set TONQL_BENCH_DB and TONQL_BENCH_ACCOUNT (see docs/PERFORMANCE.md)")
	}
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v3/actions?limit=10&account="+account, nil))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}
