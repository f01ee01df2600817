package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerPendingTraces must stay in this file: bun names a Go migration
// after the file that registers it.
func registerPendingTraces(m *migrate.Migrations) {
	m.MustRegister(pendingTracesUp, pendingTracesDown)
}

// pending_traces keeps the emulated trace of each message sent through this
// server until its real trace is stored or it expires, in the database so
// that every replica answers /api/v3/pendingTraces alike (store/pendingtraces.go).
// body is the rendered trace and its actions (JSON, package pending); the
// accounts table is what the account filter reads.
func pendingTracesUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE pending_traces (
			ext_hash TEXT COLLATE_C PRIMARY KEY,
			ext_hash_norm TEXT COLLATE_C NOT NULL,
			trace_id TEXT NOT NULL,
			created BIGINT NOT NULL,
			expires BIGINT NOT NULL,
			body BYTES NOT NULL)`,
		`CREATE INDEX pending_traces_norm ON pending_traces (ext_hash_norm)`,
		`CREATE INDEX pending_traces_expires ON pending_traces (expires)`,
		`CREATE TABLE pending_trace_accounts (
			account TEXT COLLATE_C NOT NULL,
			ext_hash TEXT COLLATE_C NOT NULL,
			PRIMARY KEY (account, ext_hash))`,
		`CREATE INDEX pending_trace_accounts_hash ON pending_trace_accounts (ext_hash)`,
	)
}

func pendingTracesDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS pending_trace_accounts`, `DROP TABLE IF EXISTS pending_traces`)
}
