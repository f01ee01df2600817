package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/history"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// fileArchive stands in for lite servers with the fixture block files: it
// finds a block as lookupBlock does and answers its file. lie answers any
// lookup with the first block; down answers nothing.
type fileArchive struct {
	raw   [][]byte
	heads []chain.BlockHeader
	calls int
	lie   bool
	down  bool
}

func newFileArchive(t *testing.T) *fileArchive {
	files, err := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("no block fixtures")
	}
	a := &fileArchive{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		blk, err := chain.ParseBlockBOC(b)
		require.NoError(t, err, f)
		a.raw, a.heads = append(a.raw, b), append(a.heads, blk.Header)
	}
	return a
}

func (a *fileArchive) AccountTransactions(context.Context, ton.AccountID, uint64, [32]byte, int) ([][]byte, error) {
	return nil, errors.New("not served")
}

func (a *fileArchive) LookupBlockRaw(_ context.Context, wc int32, shard int64, seqno *uint32, lt *uint64, utime *uint32) ([]byte, error) {
	a.calls++
	if a.down {
		return nil, errors.New("connection refused")
	}
	if a.lie {
		return a.raw[0], nil
	}
	best := -1
	for i, h := range a.heads {
		if h.Workchain != wc || h.ShardSigned() != shard {
			continue
		}
		switch {
		case seqno != nil && h.Seqno == *seqno,
			lt != nil && h.StartLt <= *lt && *lt < h.EndLt:
			return a.raw[i], nil
		case utime != nil && h.GenUtime >= *utime && (best < 0 || h.GenUtime < a.heads[best].GenUtime):
			best = i
		}
	}
	if best >= 0 {
		return a.raw[best], nil
	}
	return nil, nil
}

// A store that holds no block answers every block the lite servers hold
// (here the fixture files) as a store that imported them does: by seqno,
// by an lt inside it and by its time; an answer for another block than
// asked, or no answer, is a 503, never a wrong block; a block neither has
// is a 404 that says where it looked.
func TestBlocksOlderThanTheStore(t *testing.T) {
	ctx := context.Background()
	archive := newFileArchive(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			imported := history.New(importBlocks(t, db.URL), nil)
			empty := storetest.Open(t, emptyLike(t, db))
			viaLite := history.New(empty, archive)
			for _, want := range archive.heads {
				wc, shard := want.Workchain, want.ShardSigned()
				stored, err := imported.Block(ctx, wc, shard, want.Seqno, want.RootHash, want.FileHash)
				require.NoError(t, err)
				got, err := viaLite.Block(ctx, wc, shard, want.Seqno, want.RootHash, want.FileHash)
				require.NoError(t, err)
				if stored.MasterRef != nil && got.MasterRef != nil && stored.MasterRef.RootHash.IsZero() {
					// the store keeps the master ref's seqno, not its hashes; the block has both
					ref := *got.MasterRef
					ref.RootHash, ref.FileHash = chain.Hash{}, chain.Hash{}
					got.MasterRef = &ref
				}
				require.Equal(t, stored, got, "block %v", want.BlockID)

				mid := want.StartLt + (want.EndLt-want.StartLt)/2
				byLt, err := viaLite.LookupBlock(ctx, wc, shard, store.BlockLookup{Lt: &mid})
				require.NoError(t, err)
				require.Equal(t, want.BlockID, byLt.BlockID)
				byTime, err := viaLite.LookupBlock(ctx, wc, shard, store.BlockLookup{Utime: &want.GenUtime})
				require.NoError(t, err)
				require.Equal(t, wc, byTime.Workchain)
				require.GreaterOrEqual(t, byTime.GenUtime, want.GenUtime)

				// other hashes than the block's: not found, as for a stored block
				_, err = viaLite.Block(ctx, wc, shard, want.Seqno, chain.Hash{1}, chain.Hash{})
				require.Equal(t, apperr.NotFound, apperr.From(err).Kind)
			}
			h := archive.heads[len(archive.heads)-1]
			next := h.Seqno + 1_000_000
			_, err := viaLite.Block(ctx, h.Workchain, h.ShardSigned(), next, chain.Hash{}, chain.Hash{})
			require.Equal(t, apperr.NotFound, apperr.From(err).Kind)
			require.Contains(t, err.Error(), "nor on the lite servers")

			archive.lie = true
			var other *chain.BlockHeader
			for i := range archive.heads {
				if archive.heads[i].BlockID != archive.heads[0].BlockID {
					other = &archive.heads[i]
					break
				}
			}
			require.NotNil(t, other)
			_, err = viaLite.Block(ctx, other.Workchain, other.ShardSigned(), other.Seqno, chain.Hash{}, chain.Hash{})
			require.Equal(t, apperr.Unavailable, apperr.From(err).Kind, "a lie must not pass: %v", err)
			archive.lie, archive.down = false, true
			_, err = viaLite.Block(ctx, other.Workchain, other.ShardSigned(), other.Seqno, chain.Hash{}, chain.Hash{})
			require.Equal(t, apperr.Unavailable, apperr.From(err).Kind)
			archive.down = false

			// without an archive the store alone answers, and says so
			_, err = history.New(empty, nil).Block(ctx, h.Workchain, h.ShardSigned(), h.Seqno, chain.Hash{}, chain.Hash{})
			require.Equal(t, apperr.NotFound, apperr.From(err).Kind)
			require.NotContains(t, err.Error(), "lite")
		})
	}
}

// emptyLike is a second fresh database of db's kind.
func emptyLike(t *testing.T, db testenv.Database) string {
	if db.Name == "sqlite" {
		return "sqlite:" + filepath.Join(t.TempDir(), "empty.db")
	}
	return testenv.NewPostgresDatabase(t)
}
