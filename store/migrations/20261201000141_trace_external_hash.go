package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTraceExternalHash must stay in this file: bun names a Go
// migration after the file that registers it.
func registerTraceExternalHash(m *migrate.Migrations) {
	m.MustRegister(traceExternalHashUp, traceExternalHashDown)
}

// The hash of a trace's root external message as it was received, beside
// the TEP-467 normalized one: toncenter's trace_external_hash. Actions
// stored before stay NULL (answered null: the row does not know it) until
// their trace is imported, followed or reclassified again.
func traceExternalHashUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `ALTER TABLE actions ADD COLUMN trace_external_hash TEXT`)
}

func traceExternalHashDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `ALTER TABLE actions DROP COLUMN trace_external_hash`)
}
