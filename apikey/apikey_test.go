package apikey_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
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
