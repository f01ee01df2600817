package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTracesOrder must stay in this file: bun names a Go migration
// after the file that registers it.
func registerTracesOrder(m *migrate.Migrations) {
	m.MustRegister(tracesOrderUp, tracesOrderDown)
}

// traces_end_lt and traces_end_utime serve the orders of /api/v3/traces
// (end_lt or end_utime, then id, either direction): without them a page,
// of one account's traces or of all, read every matching trace and sorted
// them (at 10M actions an account's page walks the index from its newest
// end and stops after the page; docs/QUERY-PLANS.md, issue 31).
func tracesOrderUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE INDEX traces_end_lt ON traces (end_lt, id)`,
		`CREATE INDEX traces_end_utime ON traces (end_utime, id)`)
}

func tracesOrderDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS traces_end_utime`, `DROP INDEX IF EXISTS traces_end_lt`)
}
