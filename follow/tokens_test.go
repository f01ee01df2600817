package follow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/follow"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tokens"
)

// registry is what a store's token registry and token moves hold.
type registry struct {
	masters []any
	wallets []any
	colls   []any
	items   []any
	moves   []any
}

func registryOf(t *testing.T, st *store.Store) registry {
	t.Helper()
	ctx := context.Background()
	page := store.TokenPage{Limit: 1000}
	var r registry
	m, err := st.JettonMasters(ctx, store.JettonMasterFilter{TokenPage: page})
	require.NoError(t, err)
	w, err := st.JettonWallets(ctx, store.JettonWalletFilter{TokenPage: page})
	require.NoError(t, err)
	c, err := st.NftCollections(ctx, store.NftCollectionFilter{TokenPage: page})
	require.NoError(t, err)
	i, err := st.NftItems(ctx, store.NftItemFilter{TokenPage: page})
	require.NoError(t, err)
	for _, x := range m {
		r.masters = append(r.masters, x)
	}
	for _, x := range w {
		r.wallets = append(r.wallets, x)
	}
	for _, x := range c {
		r.colls = append(r.colls, x)
	}
	for _, x := range i {
		r.items = append(r.items, x)
	}
	for _, kind := range []string{"jetton_transfer", "jetton_burn", "nft_transfer"} {
		mv, err := st.TokenMoves(ctx, store.MoveFilter{Kind: kind, Limit: 1000})
		require.NoError(t, err)
		for _, x := range mv {
			r.moves = append(r.moves, x)
		}
	}
	return r
}

// TestFollowFillsTokenRegistry: the follower, given the token hook, fills
// the registry and the token moves of the fee-replay block exactly as
// importing the file does (its real jetton masters, wallets with the
// balances of their states after the block, the Fragment collection and
// item), on SQLite and Postgres.
func TestFollowFillsTokenRegistry(t *testing.T) {
	file := testenv.Fixture(t, tokenfixture.ReplayBlock)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			dbs := testenv.Databases(t)
			if db.Name == "postgres" {
				dbs = dbs[1:]
			}
			imported := openStore(t, db.URL)
			defer imported.Close()
			im := ingest.New(imported)
			im.Tokens = tokens.ForStore(imported, quiet()).Hook
			_, err := im.ImportFile(ctx, file)
			require.NoError(t, err)
			want := registryOf(t, imported)
			require.NotEmpty(t, want.masters)
			require.GreaterOrEqual(t, len(want.wallets), 5)
			require.NotEmpty(t, want.items)
			require.NotEmpty(t, want.moves)

			followed := openStore(t, dbs[0].URL)
			defer followed.Close()
			opt := options(0)
			opt.Tokens = tokens.ForStore(followed, quiet()).Hook
			require.NoError(t, follow.New(followed, follow.NewFilesSource([]string{file}), opt).Run(ctx))
			require.Equal(t, want, registryOf(t, followed))
		})
	}
}
