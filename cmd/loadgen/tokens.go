package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// Generated registry rows for the token routes' load test (issue 30:
// /api/v3/jetton/wallets?owner_address= and /api/v3/nft/items?owner_address=
// at a million wallets and items). The rows are made by Postgres itself
// (generate_series), so a million take seconds; addresses are md5 hex,
// unlike any real account. Owners hold five wallets and five items each
// (200,000 owners a million), the common case of a wallet app's page.
const (
	tokenOwners      = 200_000
	tokenMasters     = 10_000
	tokenCollections = 10_000
)

// genAddr is the SQL of a generated raw address for the number expr under
// the label tag: "0:" and 64 upper-case hex digits.
func genAddr(tag, expr string) string {
	return fmt.Sprintf("'0:' || upper(md5('%s' || (%s)) || md5('%s2' || (%s)))", tag, expr, tag, expr)
}

// loadTokens fills the registry with n jetton wallets and n NFT items.
func loadTokens(ctx context.Context, dbURL string, n int) error {
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	if !st.IsPostgres() {
		return fmt.Errorf("-tokens: generated registry rows are for Postgres load tests")
	}
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	owner := genAddr("o", fmt.Sprintf("i %% %d", tokenOwners))
	stmts := []string{
		fmt.Sprintf(`INSERT INTO jetton_masters (address, total_supply, mintable, admin, content_json,
			wallet_code_hash, code_hash, data_hash, last_tx_lt)
			SELECT %s, '1000000000000000', true, NULL,
				'{"name":"Token ' || i || '","symbol":"T' || i || '","decimals":"9"}', 'wch', 'ch', 'dh', i
			FROM generate_series(0, %d) i ON CONFLICT DO NOTHING`, genAddr("j", "i"), tokenMasters-1),
		fmt.Sprintf(`INSERT INTO jetton_wallets (address, owner, jetton, balance, code_hash, data_hash, last_tx_lt)
			SELECT %s, %s, %s, lpad((i::bigint * 7919 %% 1000000000)::text, 40, '0'), 'ch', 'dh', i
			FROM generate_series(0, %d) i ON CONFLICT DO NOTHING`,
			genAddr("w", "i"), owner, genAddr("j", fmt.Sprintf("i %% %d", tokenMasters)), n-1),
		fmt.Sprintf(`INSERT INTO nft_collections (address, owner, next_item_index, content_json, code_hash, data_hash, last_tx_lt)
			SELECT %s, NULL, '100', '{"name":"Collection ' || i || '"}', 'ch', 'dh', i
			FROM generate_series(0, %d) i ON CONFLICT DO NOTHING`, genAddr("c", "i"), tokenCollections-1),
		fmt.Sprintf(`INSERT INTO nft_items (address, init, idx, idx_key, collection, owner, real_owner,
			content_json, code_hash, data_hash, last_tx_lt)
			SELECT %s, true, (i / %d)::text, lpad((i / %d)::text, 78, '0'), %s, %s, %s,
				'{"uri":"https://example.invalid/' || i || '.json"}', 'ch', 'dh', i
			FROM generate_series(0, %d) i ON CONFLICT DO NOTHING`,
			genAddr("n", "i"), tokenCollections, tokenCollections, genAddr("c", fmt.Sprintf("i %% %d", tokenCollections)),
			owner, owner, n-1),
		// one table at a time: each within the driver's read timeout
		"ANALYZE jetton_masters", "ANALYZE jetton_wallets", "ANALYZE nft_collections", "ANALYZE nft_items",
	}
	start := time.Now()
	for _, s := range stmts {
		// In chunks of 10,000 rows: one statement must end within the
		// driver's read timeout.
		for from := 0; from < max(n, tokenMasters); from += 10_000 {
			chunk := strings.ReplaceAll(strings.ReplaceAll(s, "generate_series(0, ",
				fmt.Sprintf("generate_series(%d, least(%d, ", from, from+10_000-1)), ") i ON CONFLICT", ")) i ON CONFLICT")
			if _, err := st.DB().ExecContext(ctx, chunk); err != nil {
				return fmt.Errorf("%.60s...: %w", strings.Join(strings.Fields(s), " "), err)
			}
			if !strings.Contains(s, "generate_series") {
				break
			}
		}
	}
	fmt.Printf("registry: %d jetton wallets and %d NFT items of %d owners in %s\n", n, n, tokenOwners,
		time.Since(start).Round(time.Second))
	var first string
	if err := st.DB().NewRaw("SELECT "+genAddr("o", "0")).Scan(ctx, &first); err != nil {
		return err
	}
	fmt.Println("an owner:", first)
	return nil
}

// captureSQL serves path twice in process on the store, the way serve
// does (address facts cached for ADDRESS_BOOK_TTL's default), and writes
// the statements the second request sent as a pgbench script: "the same
// SQL" the server sends for a page it serves again. When the server sent
// every one of them prepared (the registry's keyed lists), the script
// keeps their placeholders as pgbench variables and out+".args" holds
// their values (-D name=value, one a line), for pgbench -M prepared: the
// database's own speed on that work plans each statement once, as the
// server's prepared statements are. Otherwise the values are written in.
func captureSQL(ctx context.Context, dbURL, path, out string) error {
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	st.CacheAddressFacts(5 * time.Second)
	rec := st.RecordStatements()
	h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
	var stmts []store.Statement
	for range 2 { // the first request's statements fill the cache and are dropped
		rec.Take()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK {
			return fmt.Errorf("%s: %d %.300s", path, w.Code, w.Body.String())
		}
		stmts = rec.Take()
	}
	if len(stmts) == 0 {
		return fmt.Errorf("%s sent no statement", path)
	}
	script, args := scriptOf(st.DB(), stmts)
	if err := writeScript(out, script); err != nil {
		return err
	}
	if args != nil {
		if err := os.WriteFile(out+".args", []byte(strings.Join(args, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %d statement(s) into %s (prepared: %t)\n", path, len(stmts), out, args != nil)
	return nil
}

// placeholder is a Postgres placeholder ($1) in a prepared statement.
var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// scriptOf turns logged statements into a pgbench script's statements and,
// when all were prepared, the -D arguments of their variables (pN_M is
// statement N's $M); else (nil arguments) every value written in.
func scriptOf(db *bun.DB, stmts []store.Statement) (script, args []string) {
	prepared := true
	for _, s := range stmts {
		prepared = prepared && len(s.Args) > 0
	}
	for i, s := range stmts {
		q := placeholder.ReplaceAllStringFunc(s.Query, func(ph string) string {
			n, _ := strconv.Atoi(ph[1:])
			if n < 1 || n > len(s.Args) {
				return ph
			}
			if prepared {
				return fmt.Sprintf(":p%d_%d", i+1, n)
			}
			return db.QueryGen().FormatQuery("?", s.Args[n-1])
		})
		script = append(script, q)
		if prepared {
			for n, a := range s.Args {
				args = append(args, fmt.Sprintf("p%d_%d=%v", i+1, n+1, a))
			}
		}
	}
	return script, args
}
