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

// fixtureBlocks are the raw mainnet blocks of the fixtures, parsed; the
// test is skipped when there are none.
func fixtureBlocks(t *testing.T) []*chain.Block {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	if len(files) == 0 {
		t.Skip("no block fixtures")
	}
	out := make([]*chain.Block, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		blk, err := chain.ParseBlockBOC(data)
		require.NoError(t, err)
		out = append(out, blk)
	}
	return out
}

// blocksAndTraces is a batch of the fixture blocks (their transactions,
// with raw BOCs, and headers) and the transactions of the first traceFiles
// toncenter trace JSON files (without BOCs); raw counts the first.
func blocksAndTraces(t *testing.T, traceFiles int) (b Batch, raw int) {
	t.Helper()
	for _, blk := range fixtureBlocks(t) {
		b.Transactions = append(b.Transactions, blk.Transactions...)
		b.Blocks = append(b.Blocks, blk.Header)
	}
	raw = len(b.Transactions)
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, files)
	for _, f := range files[:min(len(files), traceFiles)] {
		tr, err := chain.ParseToncenterFile(f)
		require.NoError(t, err)
		b.Transactions = append(b.Transactions, tr.Transactions...)
	}
	return b, raw
}

// onEachDatabase runs fn as a subtest with a migrated store on each test
// database (SQLite, and Postgres when the test environment has it).
func onEachDatabase(t *testing.T, fn func(t *testing.T, s *Store)) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			s, err := Open(context.Background(), db.URL)
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Migrate(context.Background())
			require.NoError(t, err)
			fn(t, s)
		})
	}
}
