package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTokenVersion must stay in this file: bun names a Go migration
// after the file that registers it.
func registerTokenVersion(m *migrate.Migrations) {
	m.MustRegister(tokenVersionUp, tokenVersionDown)
}

// token_metadata.version counts the writes that change what a page shows
// of a token (its content handed over anew, the worker's metadata saved).
// Servers keep each token's rendered entry keyed by address and version
// (store/tokencache.go), and a page reads only the version of each of its
// tokens: a token another server or the worker changed shows on the next
// page, with no message between servers. updated_at could not serve: it
// is in milliseconds of the writer's clock, and a content handed over and
// its metadata made within one millisecond would share it.
func tokenVersionUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `ALTER TABLE token_metadata ADD COLUMN version BIGINT NOT NULL DEFAULT 0`)
}

func tokenVersionDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `ALTER TABLE token_metadata DROP COLUMN version`)
}
