package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/store"
)

// pgbenchCase is one page a load test asks the server for, and the same
// page as the SQL the server sends for it.
type pgbenchCase struct {
	name  string
	query url.Values // of GET /api/v3/actions
	f     store.ActionFilter
}

// writePgbench writes, for each measured page of docs/PERFORMANCE.md, two
// pgbench scripts and prints the matching REST path, so that
// scripts/perf-vs-pgbench.sh sets tonql's throughput beside the
// database's own: NAME.sql holds the statements a request sent before the
// one-statement page (the page, then its address book; the issue's
// baseline), NAME-now.sql the statements the server sends now for a page
// it serves again (its keys, then its rows; the address book's facts come
// from the server's cache, ADDRESS_BOOK_TTL), for pgbench's prepared mode
// (the database's own speed on the same work).
func writePgbench(ctx context.Context, dbURL string, seed uint64, dir string) error {
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hot := synth.HotAccount(seed, 0)
	var head struct{ EndUtime uint32 }
	if err := st.DB().NewRaw("SELECT max(end_utime) FROM actions").Scan(ctx, &head.EndUtime); err != nil {
		return err
	}
	// A one-hour window three hours back, and a cursor 10,000 actions deep.
	su, eu := head.EndUtime-4*3600, head.EndUtime-3*3600
	var deep store.ActionKey
	if err := st.DB().NewRaw("SELECT end_lt, action_id FROM action_accounts WHERE account = ? ORDER BY end_lt DESC, action_id DESC OFFSET 10000 LIMIT 1", hot).
		Scan(ctx, &deep.EndLt, &deep.ActionID); err != nil {
		return err
	}
	cases := []pgbenchCase{
		{"hot", url.Values{"account": {hot}}, store.ActionFilter{Account: hot}},
		{"type", url.Values{"action_type": {"JettonSwap"}}, store.ActionFilter{Types: []string{"JettonSwap"}}},
		{"window", url.Values{"start_utime": {fmt.Sprint(su)}, "end_utime": {fmt.Sprint(eu)}},
			store.ActionFilter{StartUtime: &su, EndUtime: &eu}},
		{"hot-offset", url.Values{"account": {hot}, "offset": {"10000"}}, store.ActionFilter{Account: hot, Offset: 10000}},
		{"hot-cursor", nil, store.ActionFilter{Account: hot, After: &deep}},
	}
	for _, c := range cases {
		c.f.Limit = 10
		stmts, err := st.PageSQL(ctx, c.f)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		page, err := st.ListActions(ctx, c.f, store.NoBook)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		for _, a := range page.Actions {
			a.Accounts = nil // the REST default, include_accounts=false
		}
		list := chain.ActionList{Actions: page.Actions}
		facts, err := st.AddressFactsSQL(list.BookAddresses())
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		stmts = append(stmts, facts)
		now, err := st.PageWithBookSQL(ctx, c.f, store.NoBook)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if err := writeScript(filepath.Join(dir, c.name+".sql"), stmts); err != nil {
			return err
		}
		if err := writeScript(filepath.Join(dir, c.name+"-now.sql"), now); err != nil {
			return err
		}
		if c.query != nil {
			c.query.Set("limit", "10")
			fmt.Printf("%s /api/v3/actions?%s\n", c.name, c.query.Encode())
		} else {
			fmt.Printf("%s after=%d:%s\n", c.name, deep.EndLt, deep.ActionID)
		}
	}
	return nil
}

// writeScript writes statements as a pgbench script, one per line.
func writeScript(path string, stmts []string) error {
	lines := make([]string, len(stmts))
	for i, st := range stmts {
		lines[i] = strings.Join(strings.Fields(st), " ") + ";\n"
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
}
