package store

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

// The rendered tokens' cache: a token is found only at the version it was
// kept at, an older read never replaces a newer one, and the bytes held
// stay under the cap, the least recently shown token out first.
func TestTokenCacheVersionsAndBound(t *testing.T) {
	c := newTokenCache(16 * 1000)
	md := func(i int) *chain.TokenMetadata {
		name := fmt.Sprintf("token %d", i)
		return chain.TokenMetadata{Address: fmt.Sprint(i), Kind: chain.TokenJettonMaster, Name: &name}.WithEntry()
	}
	find := func(addr string, version int64) *chain.TokenMetadata {
		out := map[string]chain.AddressFacts{}
		refs := &tokenRefs{}
		refs.add(addr, version)
		if missing := c.lookup(refs, out); len(missing) > 0 {
			require.Equal(t, []string{addr}, missing)
			return nil
		}
		return out[addr].Token
	}

	c.add("a", 2, md(1), 100)
	require.Equal(t, "token 1", *find("a", 2).Name)
	require.Nil(t, find("a", 3), "another version is a miss")
	c.add("a", 1, md(0), 100)
	require.Equal(t, "token 1", *find("a", 2).Name, "an older read keeps the newer")
	c.add("a", 3, md(3), 100)
	require.Equal(t, "token 3", *find("a", 3).Name)
	require.EqualValues(t, 100, c.bytes, "a replaced token's bytes are given back")

	c.add("huge", 1, md(9), 1001)
	require.Nil(t, find("huge", 1), "larger than a sixteenth of the cache: not kept")

	for i := range 200 {
		c.add(fmt.Sprint("t", i), 1, md(i), 1000)
		require.NotNil(t, find("a", 3), "shown again and again, never the oldest")
		require.LessOrEqual(t, c.bytes, c.maxBytes)
	}
	require.Nil(t, find("t0", 1), "the least recently shown went first")
	require.NotNil(t, find("t199", 1))
	require.Equal(t, 16, c.lru.Len(), "15 of 1,000 bytes and the small one")
}
