package store

import (
	"context"

	"github.com/uptrace/bun"
)

// PageSQL returns, with every value inlined, the statements that read the
// page of f alone (the window probe first when there is one), as servers
// before the one-statement page sent them (then AddressFactsSQL), so a
// load test can replay that SQL with pgbench and set the server's
// throughput beside the database's own (docs/PERFORMANCE.md).
func (s *Store) PageSQL(ctx context.Context, f ActionFilter) ([]string, error) {
	var out []string
	if probe, ok := windowProbeSQL(f, inlineParams(s.db)); ok {
		out = append(out, probe)
	}
	var err error
	if f.readWindow, err = s.smallWindow(ctx, s.db, f); err != nil {
		return nil, err
	}
	return append(out, s.actionsQuery(f, inlineParams(s.db)).String()), nil
}

// AddressFactsSQL is the address book's one statement for addrs, inlined.
func (s *Store) AddressFactsSQL(addrs []string) string {
	return s.db.NewRaw(addressFactsQuery, bun.In(addrs)).String()
}

// PageWithBookSQL returns, with every value inlined, what ListActions now
// sends for the page of f with book on Postgres: the window probe when
// there is one, then the page and its facts in one statement. Replayed by
// pgbench with prepared statements, it is the database's own speed on the
// server's work.
func (s *Store) PageWithBookSQL(ctx context.Context, f ActionFilter, book Book) ([]string, error) {
	stmts, err := s.PageSQL(ctx, f)
	if err != nil || len(stmts) == 0 {
		return stmts, err
	}
	last := len(stmts) - 1
	stmts[last] = pageWithFactsSQL(stmts[last], book, f.Asc)
	return stmts, nil
}
