package apikey_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

func TestGenerateHashAndFormat(t *testing.T) {
	k1, id1 := apikey.Generate()
	k2, id2 := apikey.Generate()
	require.NotEqual(t, k1, k2)
	require.NotEqual(t, id1, id2)
	require.True(t, apikey.WellFormed(k1))
	require.True(t, apikey.WellFormed(strings.ToUpper(k1)))
	require.Equal(t, apikey.Hash(k1), apikey.Hash(strings.ToUpper(k1)))
	require.NotContains(t, apikey.Hash(k1), k1)
	for _, bad := range []string{"", "api", k1[:63], k1 + "0", strings.Repeat("g", 64)} {
		require.False(t, apikey.WellFormed(bad), bad)
	}
}

// A revocation reaches a running server within the cache TTL; unknown keys
// are cached too, so a new key also appears within the TTL.
func TestLookupCacheExpiry(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			now := time.Unix(1_700_000_000, 0)
			l := apikey.NewLookup(st, apikey.LookupOptions{TTL: 5 * time.Second, Now: func() time.Time { return now }})

			key, id := apikey.Generate()
			k, err := l.Find(ctx, key)
			require.NoError(t, err)
			require.Nil(t, k)
			_, err = st.CreateKey(ctx, store.APIKey{ID: id, Hash: apikey.Hash(key), Name: "n"})
			require.NoError(t, err)
			k, _ = l.Find(ctx, key)
			require.Nil(t, k, "the miss is cached")
			now = now.Add(6 * time.Second)
			k, _ = l.Find(ctx, key)
			require.NotNil(t, k)
			require.Equal(t, id, k.ID)

			_, err = st.RevokeKey(ctx, apikey.Hash(key))
			require.NoError(t, err)
			k, _ = l.Find(ctx, key)
			require.NotNil(t, k, "still cached")
			now = now.Add(6 * time.Second)
			k, _ = l.Find(ctx, key)
			require.Nil(t, k, "revoked")

			other, _ := apikey.Generate()
			_, err = st.RevokeKey(ctx, apikey.Hash(other))
			require.ErrorIs(t, err, store.ErrKeyNotFound)
		})
	}
}

// countingSource counts the queries that reach the real store.
type countingSource struct {
	apikey.Source
	queries int
}

func (c *countingSource) KeyByHash(ctx context.Context, hash string) (*store.APIKey, error) {
	c.queries++
	return c.Source.KeyByHash(ctx, hash)
}

// Defect 12: every uncached unknown key cost a query, and a full cache was
// emptied whole, so a flood of random keys also evicted the keys in use.
func TestLookupLimitsUnknownKeysPerClientAndEvictsLeastRecent(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	now := time.Unix(1_700_000_000, 0)
	src := &countingSource{Source: st}
	l := apikey.NewLookup(src, apikey.LookupOptions{MaxEntries: 100, MissRate: 10, MissBurst: 20,
		Now: func() time.Time { return now }})
	key, id := apikey.Generate()
	_, err := st.CreateKey(ctx, store.APIKey{ID: id, Hash: apikey.Hash(key), Name: "n"})
	require.NoError(t, err)

	attacker := apikey.WithClient(ctx, "203.0.113.7")
	refused := 0
	for range 1000 {
		k, _ := apikey.Generate()
		if _, err := l.Find(attacker, k); err != nil {
			require.Equal(t, apperr.RateLimited, apperr.From(err).Kind)
			refused++
		}
	}
	require.Equal(t, 20, src.queries, "the burst, then nothing until the bucket refills")
	require.Equal(t, 980, refused)
	now = now.Add(time.Second)
	k, _ := apikey.Generate()
	_, err = l.Find(attacker, k)
	require.NoError(t, err, "10 lookups a second refill")

	// An active key is looked up for anyone, and does not use the budget.
	found, err := l.Find(attacker, key)
	require.NoError(t, err)
	require.NotNil(t, found)

	// Least recently used entries go first: a key in use survives a flood
	// of unknown keys from many addresses.
	before := src.queries
	for i := range 500 {
		k, _ := apikey.Generate()
		_, err := l.Find(apikey.WithClient(ctx, "198.51.100."+strconv.Itoa(i%250)), k)
		require.NoError(t, err)
		_, err = l.Find(attacker, key)
		require.NoError(t, err)
	}
	require.Equal(t, before+500, src.queries, "the active key stayed cached")
}
