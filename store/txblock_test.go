package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/migrate"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store/migrations"
)

// The tx_block migration on a database with raw blocks: rows stored
// before it (its columns dropped by its own rollback) get the block that
// holds them from the block store when it runs again, the same block the
// importer writes; a trace-JSON row written first learns its block when
// the block is stored later.
func TestTxBlockMigrationBackfills(t *testing.T) {
	blocks := fixtureBlocks(t)
	var b Batch
	want := map[string]chain.BlockID{}
	for _, blk := range blocks {
		b.Transactions = append(b.Transactions, blk.Transactions...)
		b.Blocks = append(b.Blocks, blk.Header)
		for _, tx := range blk.Transactions {
			want[tx.Hash.Base64()] = chain.BlockID{Workchain: blk.Header.Workchain, Shard: blk.Header.Shard, Seqno: blk.Header.Seqno}
		}
	}
	require.Greater(t, len(want), 100)
	blocksOf := func(t *testing.T, s *Store) map[string]chain.BlockID {
		txs, err := s.FindTransactions(context.Background(), TxFilter{Limit: 10_000})
		require.NoError(t, err)
		out := map[string]chain.BlockID{}
		for _, tx := range txs {
			if tx.Block != nil {
				out[tx.Hash.Base64()] = *tx.Block
			}
		}
		return out
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, db.URL)
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Migrate(ctx)
			require.NoError(t, err)

			// A block's transaction stored first without its block (as
			// from trace JSON) learns it when the block is stored.
			first := *b.Transactions[0]
			first.Block, first.BOC = nil, nil
			require.NoError(t, s.SaveBatch(ctx, &Batch{Transactions: []*chain.Transaction{&first}}))
			require.Empty(t, blocksOf(t, s))
			require.NoError(t, s.SaveBatch(ctx, &b))
			require.Equal(t, want, blocksOf(t, s), "the importer writes each transaction's block")

			all := migrations.New().Sorted()
			at := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.Contains(m.Comment, "tx_block") })
			require.GreaterOrEqual(t, at, 0)
			m := all[at]
			mig := migrate.NewMigrator(s.db, migrations.New())
			require.NoError(t, m.Down(ctx, mig, &m))
			require.NoError(t, m.Up(ctx, mig, &m))
			require.Equal(t, want, blocksOf(t, s), "the migration fills rows stored before it")
		})
	}
}
