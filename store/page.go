package store

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Book says whose facts a page is read with: the address book's keys.
type Book int

const (
	NoBook                  Book = iota // the page alone
	BookOfValues                        // the addresses its values name
	BookOfValuesAndAccounts             // those and every participant (include_accounts)
)

// Page is one page of actions and, unless NoBook, its book's addresses
// (sorted) with the facts of each (the zero facts for one the store knows
// nothing of).
type Page struct {
	Actions []*chain.Action
	Book    []string
	Facts   map[string]chain.AddressFacts
}

// ListActions returns one page ordered by (end_lt, action_id), how the
// page is found is explained at actionsQuery, with the facts its address
// book needs.
//
// It is the hot path of every page; on Postgres it takes two statements
// (pgPage), on SQLite the deferred join of actionsQuery and the facts.
// With the facts cache on (CacheAddressFacts) a page whose addresses were
// all shown lately is read without its facts, and only those missing are
// read apart.
// Rows are scanned into their fields directly rather than by bun's
// reflection, which cost about a third of the read.
func (s *Store) ListActions(ctx context.Context, f ActionFilter, book Book) (Page, error) {
	var p Page
	err := s.read(func(db *bun.DB) error {
		var err error
		if f.readWindow, err = s.smallWindow(ctx, db, f); err != nil {
			return err
		}
		p = Page{Actions: make([]*chain.Action, 0, f.Limit)}
		c := s.facts
		if s.IsPostgres() && book != NoBook && (c == nil || !c.isWarm(f.Account)) {
			return s.pgPageWithFacts(ctx, db, f, book, &p)
		}
		if s.IsPostgres() {
			err = s.pgPage(ctx, db, f, NoBook, &p)
		} else {
			err = s.sqlitePage(ctx, db, f, &p)
		}
		if err != nil || book == NoBook {
			return err
		}
		p.Book = bookAddresses(p.Actions, book)
		p.Facts = make(map[string]chain.AddressFacts, len(p.Book))
		if c != nil {
			c.warm.Add(f.Account, c.has(p.Book))
		}
		return s.factsOf(ctx, db, p.Book, p.Facts)
	})
	if err != nil {
		return Page{}, unavailable(err)
	}
	return p, nil
}

// pgPageWithFacts reads a page and its book's facts in the page's own
// statement (pgPage), and caches the facts when the cache is on: the cold
// path, one round trip for the facts where reading them apart takes two.
func (s *Store) pgPageWithFacts(ctx context.Context, db *bun.DB, f ActionFilter, book Book, p *Page) error {
	c := s.facts
	var gen uint64
	if c != nil {
		gen = c.gen.Load()
	}
	if err := s.pgPage(ctx, db, f, book, p); err != nil {
		return err
	}
	p.Book = bookAddresses(p.Actions, book)
	for _, a := range p.Book {
		if _, ok := p.Facts[a]; !ok {
			p.Facts[a] = chain.AddressFacts{}
		}
	}
	if c != nil {
		c.warm.Add(f.Account, c.has(p.Book))
		c.fill(gen, p.Book, p.Facts)
	}
	return nil
}

// sqlitePage reads a page on SQLite: the deferred join, prepared.
func (s *Store) sqlitePage(ctx context.Context, db *bun.DB, f ActionFilter, p *Page) error {
	v := newParams(db)
	text, err := sqlText(db, s.actionsQuery(f, v))
	if err != nil {
		return err
	}
	res, err := s.prepared(ctx, db, text, v.vals)
	if err != nil {
		return err
	}
	return scanPage(res, p)
}

// bookAddresses are the addresses whose facts book asks for.
func bookAddresses(page []*chain.Action, book Book) []string {
	var out []string
	for _, a := range page {
		out = append(out, a.Addresses...)
		if book == BookOfValuesAndAccounts {
			out = append(out, a.Accounts...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// scanPage reads the rows of actionsQuery into p.
func scanPage(res *sql.Rows, p *Page) error {
	defer res.Close()
	var r actionRow
	dest := r.fields()
	for res.Next() {
		if err := res.Scan(dest...); err != nil {
			return err
		}
		p.Actions = append(p.Actions, r.toChain())
	}
	return res.Err()
}

// fields are the scan targets of actionColumns, in order. They take NULL
// as the zero value: pageRowsSQL's fact rows leave the action
// columns NULL, which the driver reads without allocating.
func (r *actionRow) fields() []any {
	return []any{(*nullString)(&r.ActionID), (*nullString)(&r.TraceID), (*nullString)(&r.TxHash),
		(*nullString)(&r.Type), (*nullString)(&r.Status), (*nullString)(&r.Value),
		(*nullInt)(&r.StartLt), (*nullInt)(&r.StartUtime), (*nullInt)(&r.EndLt), (*nullInt)(&r.EndUtime),
		(*nullString)(&r.TxHashes), (*nullInt)(&r.TraceEndLt), (*nullInt)(&r.TraceEndUtime),
		&r.TraceExternalHashNorm, &r.TraceExternalHash, &r.McSeqno, (*nullString)(&r.Addresses), (*nullString)(&r.Accounts),
		(*nullString)(&r.ParentActionID), (*nullString)(&r.Ancestors)}
}

// Row kinds of pageRowsSQL, in the order they come.
const (
	rowAction     = 0
	rowAccount    = 1 // accounts: status, is_wallet, balance
	rowInterfaces = 2 // account_interfaces: the space-separated list
	rowDomain     = 3 // dns_names: one domain per row, sorted
)

// pgPage reads a page on Postgres in two statements, each planned where
// it is cheap and safe:
//
//  1. the page's keys (pageKeysQuery with LIMIT and OFFSET), planned for
//     its values every time: a plan made once for any account (a generic
//     plan) guessed an average account's few rows and sorted them, which
//     for a hot account meant reading 100,000 rows for a cursor page. It
//     reads one table, so planning it is cheap;
//  2. the actions of those keys with the address book's facts
//     (pageRowsSQL), prepared once per connection and planned once: exact
//     keys leave the plan nothing to guess, and planning the join of two
//     partitioned tables cost more than running it.
//
// Two round trips where the old deferred join and the book took two as
// well, with none of their planning on the hot path (docs/PERFORMANCE.md).
func (s *Store) pgPage(ctx context.Context, db *bun.DB, f ActionFilter, book Book, p *Page) error {
	v := newParams(db)
	keys, err := s.pageKeysSQL(f, v)
	if err != nil {
		return err
	}
	rows, err := perValue(ctx, db, keys, v.vals)
	if err != nil {
		return err
	}
	var ids []string
	var lts []int64
	for rows.Next() {
		var id string
		var lt int64
		if err := rows.Scan(&id, &lt); err != nil {
			rows.Close()
			return err
		}
		ids, lts = append(ids, id), append(lts, lt)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if book != NoBook {
		p.Facts = map[string]chain.AddressFacts{}
	}
	if len(ids) == 0 {
		return nil
	}
	res, err := s.prepared(ctx, db, pageRowsSQL(book), []any{textArray(ids), intArray(lts)})
	if err != nil {
		return err
	}
	var tokens tokenRefs
	if err := scanPageWithFacts(res, p, &tokens); err != nil {
		return err
	}
	return s.resolveTokens(ctx, db, &tokens, p.Facts)
}

// pageKeysSQL is pgPage's first statement: the page's keys, LIMIT and
// OFFSET written into the text (as parameters they would leave Postgres
// planning for a tenth of the rows).
func (s *Store) pageKeysSQL(f ActionFilter, v *params) (string, error) {
	text, err := sqlText(s.db, s.pageKeysQuery(f, v))
	return text + " LIMIT " + strconv.Itoa(f.Limit) + " OFFSET " + strconv.Itoa(f.Offset), err
}

// textArray and intArray write Postgres array literals, for parameters
// cast to text[] and bigint[].
func textArray(vs []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, c := range []byte(v) {
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

func intArray(vs []int64) string {
	b := []byte{'{'}
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return string(append(b, '}'))
}

// pageRowsSQL reads, in one statement, the actions of the keys in $1
// (action_ids) and $2 (their end_lts), in that order, and unless NoBook
// the address book's facts (and its tokens' metadata, rowToken): the page is materialized once, the book's
// addresses are split out of its stored lists, and the three fact tables
// are read for them. Rows of both kinds share one column list: the row
// kind, the action's place in the page, its columns, then three fact
// columns; each kind leaves the other's columns NULL (the fact's address
// stands in action_id). Order: the page's rows in page order, then the
// facts, an address's domains sorted so that the one shown is the same
// every time.
func pageRowsSQL(book Book) string {
	const noAction = `NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`
	var b strings.Builder
	b.WriteString("WITH page AS MATERIALIZED (SELECT k.n, " + actionColumns +
		" FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS k(action_id, end_lt, n)" +
		" JOIN actions AS a ON a.action_id = k.action_id AND a.end_lt = k.end_lt)")
	if book != NoBook {
		lists := "page.addresses"
		if book == BookOfValuesAndAccounts {
			lists = "page.addresses || ' ' || page.accounts"
		}
		b.WriteString(", book AS (SELECT DISTINCT x.address FROM page, unnest(string_to_array(" + lists +
			", ' ')) AS x(address) WHERE x.address <> '')")
	}
	b.WriteString("\nSELECT 0 AS k, page.*, NULL AS ft, NULL::boolean AS fw, NULL::bigint AS fb FROM page\n")
	if book != NoBook {
		b.WriteString("UNION ALL SELECT 1, 0, address, " + noAction + ", status, is_wallet, balance FROM accounts WHERE address IN (SELECT address FROM book)\n")
		b.WriteString("UNION ALL SELECT 2, 0, address, " + noAction + ", interfaces, NULL, NULL FROM account_interfaces WHERE address IN (SELECT address FROM book)\n")
		b.WriteString("UNION ALL SELECT 3, 0, address, " + noAction + ", domain, NULL, NULL FROM dns_names WHERE address IN (SELECT address FROM book)\n")
		b.WriteString("UNION ALL SELECT 4, 0, address, " + noAction + ", NULL, NULL, version FROM token_metadata WHERE address IN (SELECT address FROM book)\n")
	}
	b.WriteString("ORDER BY 1, 2, 3, ft")
	return b.String()
}

// scanPageWithFacts reads the rows of pageRowsSQL into p, and its tokens'
// addresses and versions into tokens.
func scanPageWithFacts(res *sql.Rows, p *Page, tokens *tokenRefs) error {
	defer res.Close()
	var r actionRow
	var kind, place nullInt
	var text nullString
	var wallet sql.NullBool
	var balance nullInt
	dest := append(append([]any{&kind, &place}, r.fields()...), &text, &wallet, &balance)
	for res.Next() {
		if err := res.Scan(dest...); err != nil {
			return err
		}
		if kind == rowAction {
			p.Actions = append(p.Actions, r.toChain())
			continue
		}
		addFact(p.Facts, tokens, int(kind), r.ActionID, string(text), wallet.Bool, int64(balance))
	}
	return res.Err()
}

// addFact records one fact row of either address facts query; a token's
// row (its version in the balance column) goes to tokens, whose metadata
// resolveTokens sets.
func addFact(out map[string]chain.AddressFacts, tokens *tokenRefs, kind int, addr, text string, wallet bool, balance int64) {
	if kind == rowToken {
		tokens.add(addr, balance)
		return
	}
	f := out[addr]
	switch kind {
	case rowAccount:
		f.Known, f.Status, f.IsWallet, f.Balance = true, text, wallet, uint64(balance)
	case rowInterfaces:
		f.Interfaces = strings.Fields(text)
	case rowDomain:
		if f.Domain == "" {
			f.Domain = text
		}
	}
	out[addr] = f
}
