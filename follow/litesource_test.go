package follow

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// The real masterchain block of the fixtures lists the shard tops the live
// source walks back from; a shard block names its parents.
func TestParseMasterAndShardBlocks(t *testing.T) {
	raw, err := os.ReadFile(testenv.Fixture(t, "blocks/block-5.bin"))
	require.NoError(t, err)
	mc, err := parseMaster(raw)
	require.NoError(t, err)
	require.NotEmpty(t, mc.tops)
	require.NotEmpty(t, mc.blk.Transactions)
	for id := range mc.tops {
		require.EqualValues(t, 0, id.Workchain)
		require.NotZero(t, id.Seqno)
	}

	raw, err = os.ReadFile(testenv.Fixture(t, "blocks/block-2.bin"))
	require.NoError(t, err)
	_, err = parseMaster(raw)
	require.ErrorContains(t, err, "not a masterchain block")
	blk, parents, err := parseShard(raw)
	require.NoError(t, err)
	require.NotEmpty(t, parents)
	for _, p := range parents {
		require.Equal(t, blk.Seqno-1, p.Seqno)
	}
	_, _, err = parseShard([]byte("garbage"))
	require.Error(t, err)
}
