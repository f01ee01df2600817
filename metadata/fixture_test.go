package metadata

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
)

var (
	replayOnce     sync.Once
	replayContents []chain.TokenContent
	replayErr      error
)

// fixtureContents are the tokens of the fee-replay block: every jetton
// master and NFT collection its states hold, found by their get methods
// (tokenfixture), nothing chosen by hand.
func fixtureContents(t testing.TB) []chain.TokenContent {
	t.Helper()
	path := testenv.Fixture(t, tokenfixture.ReplayBlock)
	replayOnce.Do(func() { replayContents, replayErr = tokenfixture.Contents(path) })
	c, err := replayContents, replayErr
	require.NoError(t, err)
	for _, tc := range c {
		// The worker's own input check agrees with the helper's hash.
		again, err := NewTokenContent(tc.Address, tc.Kind, tc.Content)
		require.NoError(t, err)
		require.Equal(t, tc, again)
	}
	return c
}
