package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

func readBlock(t *testing.T, name string) *chain.Block {
	raw, err := os.ReadFile(filepath.Join(testenv.FixturesDir(t), "blocks", name))
	if err != nil {
		t.Skip("no block fixtures")
	}
	blk, err := chain.ParseBlockBOC(raw)
	require.NoError(t, err)
	return blk
}

// A block header comes back as it was saved; saved again by a follower
// that knows which masterchain block commits it, it learns that.
func TestBlocksRoundTrip(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		blk := readBlock(t, "block-6.bin")
		h := blk.Header
		require.NoError(t, s.SaveBatch(ctx, &Batch{Blocks: []chain.BlockHeader{h}}))
		got, err := s.Block(ctx, h.Workchain, h.ShardSigned(), BlockLookup{Seqno: &h.Seqno})
		require.NoError(t, err)
		want := h
		want.MasterRef = &chain.BlockID{Workchain: -1, Shard: 1 << 63, Seqno: h.MasterRef.Seqno} // the store keeps its seqno
		require.Equal(t, want, *got)
		require.Zero(t, got.McSeqno)

		h.McSeqno = 50_000_000
		require.NoError(t, s.SaveBatch(ctx, &Batch{Blocks: []chain.BlockHeader{h}}))
		h.McSeqno = 0 // a later import of the file alone does not forget it
		require.NoError(t, s.SaveBatch(ctx, &Batch{Blocks: []chain.BlockHeader{h}}))
		committed, err := s.CommittedBlocks(ctx, 50_000_000)
		require.NoError(t, err)
		require.Len(t, committed, 1)
		byRoot, err := s.BlockByRootHash(ctx, h.RootHash)
		require.NoError(t, err)
		require.Equal(t, h.Seqno, byRoot.Seqno)
		none, err := s.Block(ctx, h.Workchain, h.ShardSigned()+1, BlockLookup{Seqno: &h.Seqno})
		require.NoError(t, err)
		require.Nil(t, none)
	})
}

// A row stored before the store kept vert_seqno_incr, rand_seed and
// created_by (as migration ...201 leaves it: NULL) answers them unknown,
// and learns them when the block is imported again.
func TestBlockExtraFilledByImportAgain(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		h := readBlock(t, "block-6.bin").Header
		require.NotNil(t, h.RandSeed)
		old := h
		old.VertSeqnoIncr, old.RandSeed, old.CreatedBy = nil, nil, nil
		require.NoError(t, s.SaveBatch(ctx, &Batch{Blocks: []chain.BlockHeader{old}}))
		got, err := s.Block(ctx, h.Workchain, h.ShardSigned(), BlockLookup{Seqno: &h.Seqno})
		require.NoError(t, err)
		require.Nil(t, got.RandSeed)
		require.Nil(t, got.VertSeqnoIncr)
		require.NoError(t, s.SaveBatch(ctx, &Batch{Blocks: []chain.BlockHeader{h}}))
		got, err = s.Block(ctx, h.Workchain, h.ShardSigned(), BlockLookup{Seqno: &h.Seqno})
		require.NoError(t, err)
		require.Equal(t, h.RandSeed, got.RandSeed)
		require.Equal(t, h.CreatedBy, got.CreatedBy)
		require.Equal(t, h.VertSeqnoIncr, got.VertSeqnoIncr)
	})
}

// A transaction first stored without its raw BOC (as trace JSON brings
// it) gets the BOC when its block is imported.
func TestTransactionGetsItsBOCLater(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		blk := readBlock(t, "block-2.bin") // enough rows to go through COPY on Postgres
		bare := make([]*chain.Transaction, len(blk.Transactions))
		for i, tx := range blk.Transactions {
			c := *tx
			c.BOC = nil
			bare[i] = &c
		}
		require.NoError(t, s.SaveBatch(ctx, &Batch{Transactions: bare}))
		got, err := s.TransactionByHash(ctx, blk.Transactions[0].Hash)
		require.NoError(t, err)
		require.Empty(t, got.BOC)
		require.NoError(t, s.SaveBatch(ctx, &Batch{Transactions: blk.Transactions}))
		for _, tx := range blk.Transactions {
			got, err := s.TransactionByHash(ctx, tx.Hash)
			require.NoError(t, err)
			require.Equal(t, tx.BOC, got.BOC)
		}
	})
}

func TestShardAccountRange(t *testing.T) {
	lo, hi := shardAccountRange(0, 0xa000000000000000) // prefix 10
	require.Equal(t, "0:8000000000000000000000000000000000000000000000000000000000000000", lo)
	require.Equal(t, "0:BFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", hi)
	lo, hi = shardAccountRange(-1, 1<<63)
	require.Equal(t, "-1:0000000000000000000000000000000000000000000000000000000000000000", lo)
	require.Equal(t, "-1:FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", hi)
}

// FindBlocks filters by each key and pages in gen_utime order; the
// masterchain range is the oldest and newest stored masterchain block.
func TestFindBlocks(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var hs []chain.BlockHeader
		for _, name := range []string{"block-3.bin", "block-5.bin", "block-6.bin"} {
			hs = append(hs, readBlock(t, name).Header)
		}
		require.NoError(t, s.SaveBatch(ctx, &Batch{Blocks: hs}))
		all, err := s.FindBlocks(ctx, BlockFilter{Limit: 10, Desc: true})
		require.NoError(t, err)
		require.Len(t, all, len(hs))
		for i := 1; i < len(all); i++ {
			require.GreaterOrEqual(t, all[i-1].GenUtime, all[i].GenUtime)
		}
		second, err := s.FindBlocks(ctx, BlockFilter{Limit: 1, Offset: 1, Desc: true})
		require.NoError(t, err)
		require.Equal(t, all[1].RootHash, second[0].RootHash)
		for _, h := range hs {
			shard, seqno := h.ShardSigned(), h.Seqno
			got, err := s.FindBlocks(ctx, BlockFilter{Workchain: &h.Workchain, Shard: &shard, Seqno: &seqno, Limit: 10})
			require.NoError(t, err)
			require.Len(t, got, 1)
			require.Equal(t, h.RootHash, got[0].RootHash)
			lt := h.StartLt
			got, err = s.FindBlocks(ctx, BlockFilter{StartLt: &lt, EndLt: &lt, Limit: 10})
			require.NoError(t, err)
			require.Len(t, got, 1)
			require.Equal(t, h.RootHash, got[0].RootHash)
			u := h.GenUtime
			got, err = s.FindBlocks(ctx, BlockFilter{StartUtime: &u, EndUtime: &u, Limit: 10})
			require.NoError(t, err)
			require.NotEmpty(t, got)
		}
		first, err := s.FirstMasterBlock(ctx)
		require.NoError(t, err)
		last, err := s.LastMasterBlock(ctx)
		require.NoError(t, err)
		require.Equal(t, hs[1].RootHash, first.RootHash) // block-5 is the one masterchain block
		require.Equal(t, first.RootHash, last.RootHash)
	})
}
