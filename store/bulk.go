package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// bulkTables are the tables a bulk load fills row by row; their secondary
// indexes are rebuilt once at the end instead of kept up to date per row.
var bulkTables = []string{"actions", "action_accounts", "action_transactions"}

// DeferIndexes drops the secondary indexes of the action tables (primary
// keys stay: inserts still resolve conflicts) and returns a function that
// builds them again from the definitions Postgres held, so that the load
// tool need not repeat the migrations' DDL. Building an index once over
// millions of rows is several times cheaper than maintaining it per
// insert. Only for loading an empty or offline database: reads without the
// indexes are slow until restore returns. SQLite: a no-op.
func (s *Store) DeferIndexes(ctx context.Context) (restore func(context.Context) error, err error) {
	if !s.IsPostgres() {
		return func(context.Context) error { return nil }, nil
	}
	var defs []struct {
		Name string `bun:"indexname"`
		Def  string `bun:"indexdef"`
	}
	err = s.db.NewRaw(`SELECT i.indexname, i.indexdef FROM pg_indexes i
		WHERE i.schemaname = current_schema() AND i.tablename IN (?)
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
		bun.In(bulkTables)).Scan(ctx, &defs)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		if _, err := s.db.ExecContext(ctx, `DROP INDEX IF EXISTS "`+strings.ReplaceAll(d.Name, `"`, `""`)+`"`); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", d.Name, err)
		}
	}
	return func(ctx context.Context) error {
		for _, d := range defs {
			// Postgres spells a partitioned table's index "ON ONLY", which
			// made an invalid index on the parent alone, none on its
			// partitions (every read then scanned them whole); without
			// ONLY the index is built on each partition and attached.
			def := strings.Replace(d.Def, " ON ONLY ", " ON ", 1)
			if _, err := s.db.ExecContext(ctx, def); err != nil {
				return fmt.Errorf("rebuild index %s: %w", d.Name, err)
			}
		}
		return nil
	}, nil
}
