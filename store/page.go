package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
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
// It is the hot path of every page. On Postgres the page and its facts
// come in one statement (pageWithFactsSQL): a second round trip cost the
// server as much CPU as reading the page. Rows are scanned into their
// fields directly rather than by bun's reflection, which cost about a
// third of the read.
func (s *Store) ListActions(ctx context.Context, f ActionFilter, book Book) (Page, error) {
	var p Page
	err := s.read(func(db *bun.DB) error {
		var err error
		if f.readWindow, err = s.smallWindow(ctx, db, f); err != nil {
			return err
		}
		p = Page{Actions: make([]*chain.Action, 0, f.Limit)}
		v := newParams(db)
		query := s.actionsQuery(f, v).String()
		if book != NoBook && s.IsPostgres() {
			p.Facts = map[string]chain.AddressFacts{}
			res, err := s.prepared(ctx, db, pageWithFactsSQL(query, book, f.Asc), v.vals)
			if err != nil {
				return err
			}
			return scanPageWithFacts(res, &p)
		}
		res, err := s.prepared(ctx, db, query, v.vals)
		if err != nil {
			return err
		}
		if err := scanPage(res, &p); err != nil || book == NoBook {
			return err
		}
		p.Facts = map[string]chain.AddressFacts{}
		if addrs := bookAddresses(p.Actions, book); len(addrs) > 0 {
			return scanFacts(ctx, db, addrs, p.Facts)
		}
		return nil
	})
	if err != nil {
		return Page{}, unavailable(err)
	}
	if book != NoBook {
		p.Book = bookAddresses(p.Actions, book)
		for _, a := range p.Book {
			if _, ok := p.Facts[a]; !ok {
				p.Facts[a] = chain.AddressFacts{}
			}
		}
	}
	return p, nil
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
// as the zero value: pageWithFactsSQL's fact rows leave the action
// columns NULL, which the driver reads without allocating.
func (r *actionRow) fields() []any {
	return []any{(*nullString)(&r.ActionID), (*nullString)(&r.TraceID), (*nullString)(&r.TxHash),
		(*nullString)(&r.Type), (*nullString)(&r.Status), (*nullString)(&r.Value),
		(*nullInt)(&r.StartLt), (*nullInt)(&r.StartUtime), (*nullInt)(&r.EndLt), (*nullInt)(&r.EndUtime),
		(*nullString)(&r.TxHashes), (*nullInt)(&r.TraceEndLt), (*nullInt)(&r.TraceEndUtime),
		&r.TraceExternalHashNorm, &r.McSeqno, (*nullString)(&r.Addresses), (*nullString)(&r.Accounts)}
}

// nullString and nullInt scan a column, NULL as the zero value, without
// database/sql's reflection.
type (
	nullString string
	nullInt    int64
)

func (s *nullString) Scan(v any) error {
	switch v := v.(type) {
	case string:
		*s = nullString(v)
	case []byte:
		*s = nullString(v)
	case nil:
		*s = ""
	default:
		return fmt.Errorf("cannot scan %T into a string", v)
	}
	return nil
}

func (n *nullInt) Scan(v any) error {
	switch v := v.(type) {
	case int64:
		*n = nullInt(v)
	case nil:
		*n = 0
	default:
		return fmt.Errorf("cannot scan %T into an integer", v)
	}
	return nil
}

// Row kinds of pageWithFactsSQL, in the order they come.
const (
	rowAction     = 0
	rowAccount    = 1 // accounts: status, is_wallet, balance
	rowInterfaces = 2 // account_interfaces: the space-separated list
	rowDomain     = 3 // dns_names: one domain per row, sorted
)

// pageWithFactsSQL wraps a page query so that one statement returns the
// page and the address book's facts: the page is materialized once, the
// book's addresses are split out of its stored lists, and the three fact
// tables are read for them. Rows of both kinds share one column list:
// an action's columns, then three fact columns; each kind leaves the
// other's columns NULL (the fact's address stands in action_id). Order:
// the page's rows in page order, then the facts, an address's domains
// sorted so that the one shown is the same every time.
func pageWithFactsSQL(page string, book Book, asc bool) string {
	lists := "page.addresses"
	if book == BookOfValuesAndAccounts {
		lists = "page.addresses || ' ' || page.accounts"
	}
	dir := " DESC"
	if asc {
		dir = " ASC"
	}
	const noAction = `NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`
	var b strings.Builder
	b.WriteString("WITH page AS MATERIALIZED (")
	b.WriteString(page)
	b.WriteString("), book AS (SELECT DISTINCT x.address FROM page, unnest(string_to_array(")
	b.WriteString(lists)
	b.WriteString(", ' ')) AS x(address) WHERE x.address <> '')\n")
	b.WriteString("SELECT 0 AS k, page.*, NULL AS ft, NULL::boolean AS fw, NULL::bigint AS fb FROM page\n")
	b.WriteString("UNION ALL SELECT 1, address, " + noAction + ", status, is_wallet, balance FROM accounts WHERE address IN (SELECT address FROM book)\n")
	b.WriteString("UNION ALL SELECT 2, address, " + noAction + ", interfaces, NULL, NULL FROM account_interfaces WHERE address IN (SELECT address FROM book)\n")
	b.WriteString("UNION ALL SELECT 3, address, " + noAction + ", domain, NULL, NULL FROM dns_names WHERE address IN (SELECT address FROM book)\n")
	b.WriteString("ORDER BY k, end_lt" + dir + ", action_id" + dir + ", ft")
	return b.String()
}

// scanPageWithFacts reads the rows of pageWithFactsSQL into p.
func scanPageWithFacts(res *sql.Rows, p *Page) error {
	defer res.Close()
	var r actionRow
	var kind nullInt
	var text nullString
	var wallet sql.NullBool
	var balance nullInt
	dest := append(append([]any{&kind}, r.fields()...), &text, &wallet, &balance)
	for res.Next() {
		if err := res.Scan(dest...); err != nil {
			return err
		}
		if kind == rowAction {
			p.Actions = append(p.Actions, r.toChain())
			continue
		}
		addFact(p.Facts, int(kind), r.ActionID, string(text), wallet.Bool, int64(balance))
	}
	return res.Err()
}

// addFact records one fact row of either address facts query.
func addFact(out map[string]chain.AddressFacts, kind int, addr, text string, wallet bool, balance int64) {
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
