package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerFollowCursor must stay in this file: bun names a Go migration
// after the file that registers it.
func registerFollowCursor(m *migrate.Migrations) {
	m.MustRegister(followCursorUp, followCursorDown)
}

// follow_cursor holds, per follower name, the last masterchain block whose
// data (and every shard block it commits) is in the database. It is moved in
// the same transaction as that data, so it never runs ahead or behind.
func followCursorUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE follow_cursor (
			name TEXT PRIMARY KEY,
			seqno BIGINT NOT NULL,
			utime BIGINT NOT NULL)`,
	)
}

func followCursorDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS follow_cursor`)
}
