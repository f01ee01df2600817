package migrations

import (
	"context"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTxBlock must stay in this file: bun names a Go migration after
// the file that registers it.
func registerTxBlock(m *migrate.Migrations) {
	m.MustRegister(txBlockUp, txBlockDown)
}

// block_workchain, block_shard and block_seqno name the block that holds a
// transaction (toncenter's block_ref and its workchain/shard/seqno filters
// of /api/v3/transactions). A transaction read from a raw block knows it;
// one imported from trace JSON does not (NULL) until its block is imported
// and its row is written again. shard is the signed int64 the blocks table
// keeps. transactions_block serves the three filters and their lt order;
// transactions_mc_seqno serves mc_seqno (/transactionsByMasterchainBlock),
// which had no index and read every transaction by lt to find a block's.
//
// Rows written before this migration are filled from the block store: a
// block's transactions are the stored ones of its shard in its lt range
// (as package history reads them). One pass over the blocks table, two
// statements a block; stores without raw blocks have no rows to fill.
func txBlockUp(ctx context.Context, db *bun.DB) error {
	if err := execAll(ctx, db,
		`ALTER TABLE transactions ADD COLUMN block_workchain INTEGER`,
		`ALTER TABLE transactions ADD COLUMN block_shard BIGINT`,
		`ALTER TABLE transactions ADD COLUMN block_seqno BIGINT`,
		`CREATE INDEX transactions_block ON transactions (block_workchain, block_shard, block_seqno, lt)`,
		`CREATE INDEX transactions_mc_seqno ON transactions (mc_seqno, lt)`,
	); err != nil {
		return err
	}
	var blocks []struct {
		Workchain      int32
		Shard          int64
		Seqno          int64
		StartLt, EndLt int64
	}
	if err := db.NewSelect().Table("blocks").Column("workchain", "shard", "seqno", "start_lt", "end_lt").
		Scan(ctx, &blocks); err != nil {
		return err
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, b := range blocks {
			var rows []struct {
				Hash, Account string
			}
			prefix := strconv.Itoa(int(b.Workchain)) + ":"
			if err := tx.NewSelect().Table("transactions").Column("hash", "account").
				Where("lt >= ? AND lt < ? AND block_seqno IS NULL", b.StartLt, b.EndLt).
				Scan(ctx, &rows); err != nil {
				return err
			}
			var hashes []string
			for _, r := range rows {
				if strings.HasPrefix(r.Account, prefix) && inShard(r.Account[len(prefix):], uint64(b.Shard)) {
					hashes = append(hashes, r.Hash)
				}
			}
			if len(hashes) == 0 {
				continue
			}
			if _, err := tx.NewUpdate().Table("transactions").
				Set("block_workchain = ?, block_shard = ?, block_seqno = ?", b.Workchain, b.Shard, b.Seqno).
				Where("hash IN (?)", bun.In(hashes)).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// inShard reports whether an account's 256-bit address (hex) lies in a
// shard: the bits above the shard id's lowest set bit are its prefix.
// Frozen here (package history has the live copy) so the migration never
// changes.
func inShard(hexAddr string, shard uint64) bool {
	if len(hexAddr) < 16 {
		return false
	}
	top, err := strconv.ParseUint(hexAddr[:16], 16, 64)
	if err != nil {
		return false
	}
	low := shard & -shard
	mask := ^(low<<1 - 1)
	return top&mask == shard&mask
}

func txBlockDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`DROP INDEX IF EXISTS transactions_mc_seqno`,
		`DROP INDEX IF EXISTS transactions_block`,
		`ALTER TABLE transactions DROP COLUMN block_seqno`,
		`ALTER TABLE transactions DROP COLUMN block_shard`,
		`ALTER TABLE transactions DROP COLUMN block_workchain`,
	)
}
