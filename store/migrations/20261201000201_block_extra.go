package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerBlockExtra must stay in this file: bun names a Go migration after
// the file that registers it.
func registerBlockExtra(m *migrate.Migrations) {
	m.MustRegister(blockExtraUp, blockExtraDown)
}

// The three facts of a block header toncenter's Block shows that the
// blocks table did not keep: the header's vert_seqno_incr flag and the
// block extra's rand_seed and created_by (base64, like every hash of the
// store). Rows stored before stay NULL (answered null: the store does not
// know them) until the block is imported or followed again, which fills
// them (saveBlocks).
func blockExtraUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE blocks ADD COLUMN vert_seqno_incr BOOLEAN`,
		`ALTER TABLE blocks ADD COLUMN rand_seed TEXT`,
		`ALTER TABLE blocks ADD COLUMN created_by TEXT`,
	)
}

func blockExtraDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE blocks DROP COLUMN created_by`,
		`ALTER TABLE blocks DROP COLUMN rand_seed`,
		`ALTER TABLE blocks DROP COLUMN vert_seqno_incr`,
	)
}
