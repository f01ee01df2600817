package store

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
)

// PageSQL returns, with every value inlined, the statements that read the
// page of f alone (the window probe first when there is one), as servers
// before the one-statement page sent them (then AddressFactsSQL), so a
// load test can replay that SQL with pgbench and set the server's
// throughput beside the database's own (docs/PERFORMANCE.md).
func (s *Store) PageSQL(ctx context.Context, f ActionFilter) ([]string, error) {
	out, f, err := s.probeSQL(ctx, f)
	if err != nil {
		return nil, err
	}
	text, err := sqlText(s.db, s.actionsQuery(f, inlineParams(s.db)))
	return append(out, text), err
}

// probeSQL is the window probe of f, inlined, when f has one, and f as the
// probe leaves it (read whole or walked).
func (s *Store) probeSQL(ctx context.Context, f ActionFilter) ([]string, ActionFilter, error) {
	var out []string
	if probe, ok := windowProbeSQL(f, inlineParams(s.db)); ok {
		out = append(out, probe)
	}
	var err error
	f.readWindow, err = s.smallWindow(ctx, s.db, f)
	return out, f, err
}

// AddressFactsSQL is the address book's one statement for addrs (with
// their tokens' versions; the tokens not kept rendered take a second
// statement, tokenRowsSQL), inlined.
func (s *Store) AddressFactsSQL(addrs []string) (string, error) {
	return sqlText(s.db, s.db.NewRaw(addressFactsQuery(factsByList), bun.In(addrs)))
}

// PageWithBookSQL returns, with every value inlined, what ListActions now
// sends for the page of f with book on Postgres: the window probe when
// there is one, the page's keys, then the page's rows with their facts
// (pgPage). Replayed by pgbench with prepared statements, it is the
// database's own speed on the server's work at best (pgbench keeps the
// keys' plan, which the server makes anew each time).
func (s *Store) PageWithBookSQL(ctx context.Context, f ActionFilter, book Book) ([]string, error) {
	out, f, err := s.probeSQL(ctx, f)
	if err != nil {
		return nil, err
	}
	keys, err := s.pageKeysSQL(f, inlineParams(s.db))
	if err != nil {
		return nil, err
	}
	var ids []string
	var lts []int64
	rows, err := s.db.QueryContext(ctx, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var lt int64
		if err := rows.Scan(&id, &lt); err != nil {
			return nil, err
		}
		ids, lts = append(ids, id), append(lts, lt)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	page, err := sqlText(s.db, s.db.NewRaw(strings.NewReplacer("$1", "?0", "$2", "?1").Replace(pageRowsSQL(book)),
		textArray(ids), intArray(lts)))
	return append(out, keys, page), err
}
