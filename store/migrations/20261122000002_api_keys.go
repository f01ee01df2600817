package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerAPIKeys must stay in this file: bun names a Go migration after the
// file that registers it.
func registerAPIKeys(m *migrate.Migrations) {
	m.MustRegister(apiKeysUp, apiKeysDown)
}

// api_keys keeps only the SHA-256 of each key (hex), never the key itself.
// id is a short public identifier for logs, metrics and the CLI. rate_limit
// 0 means "the server default", a negative one means "unlimited"; rate_burst
// 0 means the default burst. units is the persisted request-unit count.
//
// api_unit_batches records every batch of unit counts moved from Redis into
// units, so a batch replayed after a crash (committed here, not yet deleted
// from Redis) is recognised and not counted twice.
func apiKeysUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE api_keys (
			id TEXT PRIMARY KEY,
			key_hash TEXT NOT NULL UNIQUE,
			name TEXT NOT NULL,
			rate_limit DOUBLE PRECISION NOT NULL DEFAULT 0,
			rate_burst INTEGER NOT NULL DEFAULT 0,
			units BIGINT NOT NULL DEFAULT 0,
			created_at BIGINT NOT NULL,
			revoked_at BIGINT)`,
		`CREATE TABLE api_unit_batches (
			batch_id TEXT PRIMARY KEY,
			applied_at BIGINT NOT NULL)`,
		`CREATE INDEX api_unit_batches_applied ON api_unit_batches (applied_at)`,
	)
}

func apiKeysDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS api_unit_batches`, `DROP TABLE IF EXISTS api_keys`)
}
