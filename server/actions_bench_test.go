package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// BenchmarkActionsHot measures one /api/v3/actions request end to end in
// process against a database loaded by cmd/loadgen (TONQL_BENCH_DB, e.g.
// the 1M-action Postgres of docs/PERFORMANCE.md) and its hot account
// (TONQL_BENCH_ACCOUNT); BenchmarkActionsHotGraphQL the same page through
// POST /graphql (the query of scripts/wrk-graphql.lua).
func BenchmarkActionsHot(b *testing.B) {
	dbURL, account := os.Getenv("TONQL_BENCH_DB"), os.Getenv("TONQL_BENCH_ACCOUNT")
	if dbURL == "" || account == "" {
		b.Skip("set TONQL_BENCH_DB and TONQL_BENCH_ACCOUNT (see docs/PERFORMANCE.md)")
	}
	benchmarkPage(b, dbURL, func() *http.Request {
		return httptest.NewRequest(http.MethodGet, "/api/v3/actions?limit=10&account="+account, nil)
	})
}

func BenchmarkActionsHotGraphQL(b *testing.B) {
	dbURL, account := os.Getenv("TONQL_BENCH_DB"), os.Getenv("TONQL_BENCH_ACCOUNT")
	if dbURL == "" || account == "" {
		b.Skip("set TONQL_BENCH_DB and TONQL_BENCH_ACCOUNT (see docs/PERFORMANCE.md)")
	}
	body := `{"query":"query($a:String){actions(filter:{account:$a},limit:10){actions{action_id trace_id tx_hash type status value start_lt start_utime end_lt end_utime} address_book}}","variables":{"a":"` + account + `"}}`
	benchmarkPage(b, dbURL, func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return r
	})
}

func benchmarkPage(b *testing.B, dbURL string, req func() *http.Request) {
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	// The address book's facts are cached as serve caches them by default;
	// TONQL_BENCH_BOOK_TTL=0 measures the page with its facts read each time.
	ttl := 5 * time.Second
	if v := os.Getenv("TONQL_BENCH_BOOK_TTL"); v != "" {
		if ttl, err = time.ParseDuration(v); err != nil {
			b.Fatal(err)
		}
	}
	st.CacheAddressFacts(ttl)
	h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
	// The access log (one line per request) is not what is measured.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req())
		if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"errors"`) {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}
