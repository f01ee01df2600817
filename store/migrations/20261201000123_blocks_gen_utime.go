package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerBlocksGenUtime must stay in this file: bun names a Go migration
// after the file that registers it.
func registerBlocksGenUtime(m *migrate.Migrations) {
	m.MustRegister(blocksGenUtimeUp, blocksGenUtimeDown)
}

// blocks_gen_utime serves the order of /api/v3/blocks and GraphQL's blocks
// (gen_utime, then workchain, shard, seqno, either direction) and their
// time bounds without a workchain: blocks_utime leads with workchain and
// shard, so a page of every shard's blocks sorted the whole table (a
// follower stores a few blocks a second).
func blocksGenUtimeUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `CREATE INDEX blocks_gen_utime ON blocks (gen_utime, workchain, shard, seqno)`)
}

func blocksGenUtimeDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS blocks_gen_utime`)
}
