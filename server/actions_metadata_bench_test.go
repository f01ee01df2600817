package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// BenchmarkActionsPageMetadata measures the hot account's /api/v3/actions
// page of 10 (generated data: 5,000 actions, the address book's facts
// stored for every account) with every address of its book a token whose
// metadata is made (name, symbol, image, a description and extra
// attributes of a few hundred bytes: "tokens") against the same page with
// no token stored ("none"), alternating, with the book's facts cached as
// serve caches them ("cached") and read with every page ("uncached",
// ADDRESS_BOOK_TTL=0: the tokens are then read in the page's own
// statement). Ratios in docs/PERFORMANCE.md.
func BenchmarkActionsPageMetadata(b *testing.B) {
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	for _, db := range testenv.Databases(b) {
		ctx := context.Background()
		st := storetest.Open(b, db.URL)
		p := synth.Params{Seed: 7, Actions: 5000, Accounts: 500, HotAccounts: 1, HotActions: 300, StartUtime: 1_760_000_000}
		batch := &store.Batch{}
		if err := synth.Generate(p, func(a *chain.Action) error { batch.Actions = append(batch.Actions, *a); return nil }); err != nil {
			b.Fatal(err)
		}
		if err := synth.Directory(p, func(a chain.AccountState, d *chain.DNSName) error {
			batch.Accounts = append(batch.Accounts, a)
			if d != nil {
				batch.DNS = append(batch.DNS, *d)
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if err := st.SaveBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
		hot := synth.HotAccount(p.Seed, 0)
		page, err := st.ListActions(ctx, store.ActionFilter{Account: hot, Limit: 10}, store.BookOfValues)
		if err != nil {
			b.Fatal(err)
		}
		makeTokens(b, st, page.Book)
		url := "/api/v3/actions?limit=10&account=" + hot
		for _, ttl := range []time.Duration{5 * time.Second, 0} {
			cache := map[bool]string{true: "cached", false: "uncached"}[ttl > 0]
			for _, tokens := range []bool{false, true, false, true} {
				// "none" moves the rows away (their addresses no longer
				// match), so both read the same table of the same size.
				prefix := map[bool]string{false: "x:", true: "0:"}[tokens]
				if _, err := st.DB().ExecContext(ctx, `UPDATE token_metadata SET address = ? || substr(address, 3)`, prefix); err != nil {
					b.Fatal(err)
				}
				st.CacheAddressFacts(ttl) // a fresh cache
				h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
				name := fmt.Sprintf("%s/%s/%s", db.Name, cache, map[bool]string{false: "none", true: "tokens"}[tokens])
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					// This process's CPU per page (cpu-ns/op): on a machine
					// shared with other builds wall time varies 2x between
					// identical runs, the work done far less. (Postgres's own
					// CPU is not in it; the statement is the same in both.)
					cpu0 := processCPU()
					defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
					for i := 0; i < b.N; i++ {
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
						if rec.Code != http.StatusOK {
							b.Fatal(rec.Code, rec.Body.String())
						}
						if tokens != strings.Contains(rec.Body.String(), `"is_indexed":true`) {
							b.Fatal("metadata not as expected: ", rec.Body.String())
						}
					}
				})
			}
		}
	}
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// makeTokens stores made metadata for every address of addrs, with the
// "x:" prefix in place of "0:" (the benchmark moves them in and out).
func makeTokens(b *testing.B, st *store.Store, addrs []string) {
	ctx := context.Background()
	at := time.Now()
	extra, _ := json.Marshal(map[string]any{"attributes": []map[string]string{{"trait_type": "background", "value": "blue"},
		{"trait_type": "eyes", "value": "laser"}}, "social": []string{"https://t.me/example", "https://example.org"},
		"websites": []string{"https://example.org"}})
	for i, a := range addrs {
		c := []byte(a)
		tc := chain.TokenContent{Address: a, Kind: chain.TokenJettonMaster, ContentHash: sha256.Sum256(c), Content: c}
		if _, err := st.EnqueueTokenContent(ctx, []chain.TokenContent{tc}); err != nil {
			b.Fatal(err)
		}
		name, sym, img := fmt.Sprintf("Token number %d", i), fmt.Sprintf("TK%d", i), fmt.Sprintf("https://cache.example.org/images/%d.png", i)
		desc, uri, dec := strings.Repeat("A jetton used by the benchmark. ", 6), fmt.Sprintf("https://meta.example.org/%d.json", i), 9
		md := chain.TokenMetadata{Address: a, Kind: tc.Kind, ContentHash: tc.ContentHash, Valid: true, Name: &name, Symbol: &sym,
			Decimals: &dec, Image: &img, Description: &desc, URI: &uri, Extra: extra, Source: chain.MetadataSemichain,
			FetchedAt: &at, UpdatedAt: at}
		if _, err := st.SaveTokenMetadata(ctx, md); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE token_metadata SET address = 'x:' || substr(address, 3)`); err != nil {
		b.Fatal(err)
	}
}
