package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// BenchmarkChainPages measures the hot pages the 10M sittings set against
// pgbench (docs/PERFORMANCE.md) in process, on real data: every fixture
// imported with the token registry on (raw blocks, so the transactions
// carry their BOCs). Each page is the one a wallet asks first: the
// busiest account's 10 transactions, one message by hash, the busiest
// account's traces, an owner's jetton wallets and NFT items. Its
// allocations per page are exact and what the server's tail under
// concurrency pays for (GC); wall times are for ratios within one run.
func BenchmarkChainPages(b *testing.B) {
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the access log is not what is measured
	files := allFixtureFiles(b)
	for _, db := range testenv.Databases(b) {
		st := importedWithTokens(b, db, files)
		ctx := context.Background()
		if db.Name == "postgres" {
			// A copied template has no planner statistics until
			// autovacuum's analyze comes; without them the message page
			// hash-joins every transaction (8 ms here, 0.3 ms analyzed).
			if _, err := st.DB().ExecContext(ctx, "ANALYZE"); err != nil {
				b.Fatal(err)
			}
		}
		pick := func(q string) string {
			var v string
			if err := st.DB().NewRaw(q).Scan(ctx, &v); err != nil {
				b.Fatal(q, err)
			}
			return url.QueryEscape(v)
		}
		account := pick(`SELECT account FROM transactions GROUP BY account ORDER BY count(*) DESC, account LIMIT 1`)
		traced := pick(`SELECT account FROM transactions WHERE trace_id IS NOT NULL GROUP BY account ORDER BY count(*) DESC, account LIMIT 1`)
		msg := pick(`SELECT hash FROM messages ORDER BY hash LIMIT 1`)
		jettonOwner := pick(`SELECT owner FROM jetton_wallets GROUP BY owner ORDER BY count(*) DESC, owner LIMIT 1`)
		nftOwner := pick(`SELECT owner FROM nft_items WHERE owner IS NOT NULL GROUP BY owner ORDER BY count(*) DESC, owner LIMIT 1`)
		h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
		for _, page := range []struct{ name, path string }{
			{"transactions", "/api/v3/transactions?limit=10&account=" + account},
			{"message", "/api/v3/messages?msg_hash=" + msg},
			{"traces", "/api/v3/traces?limit=10&account=" + traced},
			{"jetton_wallets", "/api/v3/jetton/wallets?owner_address=" + jettonOwner},
			{"nft_items", "/api/v3/nft/items?owner_address=" + nftOwner},
		} {
			b.Run(db.Name+"/"+page.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, page.path, nil))
					if rec.Code != http.StatusOK {
						b.Fatal(rec.Code, rec.Body.String())
					}
				}
			})
		}
	}
}
