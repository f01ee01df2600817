package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerBlocks must stay in this file: bun names a Go migration after
// the file that registers it.
func registerBlocks(m *migrate.Migrations) {
	m.MustRegister(blocksUp, blocksDown)
}

// blocks holds one row per raw block imported or followed: its header as
// chain.BlockHeader has it. shard is the signed int64 toncenter prints;
// hashes are standard base64 like every other hash of the store; prev is
// the previous blocks as a JSON list (one, or two after a merge).
// master_ref_seqno is the masterchain block a shard block's header refers
// to; mc_seqno the masterchain block that commits it (NULL when unknown:
// a shard block imported from a file alone).
//
// blocks_lt and blocks_utime serve lookupBlock by lt and by time within a
// shard; blocks_mc the shards of a masterchain block. messages_destination
// finds the transaction a message caused (tryLocateResultTx) by the
// message's destination and created_lt.
func blocksUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE blocks (
			workchain INTEGER NOT NULL,
			shard BIGINT NOT NULL,
			seqno BIGINT NOT NULL,
			root_hash TEXT NOT NULL,
			file_hash TEXT NOT NULL,
			global_id INTEGER NOT NULL,
			version BIGINT NOT NULL,
			flags INTEGER NOT NULL,
			after_merge BOOLEAN NOT NULL,
			after_split BOOLEAN NOT NULL,
			before_split BOOLEAN NOT NULL,
			want_merge BOOLEAN NOT NULL,
			want_split BOOLEAN NOT NULL,
			key_block BOOLEAN NOT NULL,
			vert_seqno BIGINT NOT NULL,
			validator_list_hash_short BIGINT NOT NULL,
			catchain_seqno BIGINT NOT NULL,
			min_ref_mc_seqno BIGINT NOT NULL,
			prev_key_block_seqno BIGINT NOT NULL,
			gen_utime BIGINT NOT NULL,
			start_lt BIGINT NOT NULL,
			end_lt BIGINT NOT NULL,
			master_ref_seqno BIGINT,
			mc_seqno BIGINT,
			prev TEXT NOT NULL,
			tx_count INTEGER NOT NULL,
			PRIMARY KEY (workchain, shard, seqno))`,
		`CREATE INDEX blocks_lt ON blocks (workchain, shard, start_lt)`,
		`CREATE INDEX blocks_utime ON blocks (workchain, shard, gen_utime)`,
		`CREATE INDEX blocks_mc ON blocks (mc_seqno)`,
		`CREATE INDEX blocks_root_hash ON blocks (root_hash)`,
		`CREATE INDEX messages_destination ON messages (destination, created_lt)`,
	)
}

func blocksDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS messages_destination`, `DROP TABLE IF EXISTS blocks`)
}
