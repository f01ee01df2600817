package store

import (
	"context"

	"github.com/uptrace/bun"
)

// PageSQL returns, with every value inlined, the statements ListActions
// sends to read the page of f (the window probe first when there is one),
// so a load test can replay the very same SQL with pgbench and set the
// server's throughput beside the database's own (docs/PERFORMANCE.md).
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
