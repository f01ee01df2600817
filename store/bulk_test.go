package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// DeferIndexes drops the action tables' secondary indexes and builds the
// very same ones again; primary keys stay throughout.
func TestDeferIndexesRestoresTheSameIndexes(t *testing.T) {
	dsn := testenv.NewPostgresDatabase(t)
	if dsn == "" {
		t.Skip("indexes are deferred on Postgres only")
	}
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Migrate(ctx)
	require.NoError(t, err)
	defs := func() []string {
		var out []string
		require.NoError(t, s.db.NewRaw(`SELECT indexdef FROM pg_indexes WHERE tablename IN ('actions', 'action_accounts', 'action_transactions') ORDER BY indexname`).Scan(ctx, &out))
		return out
	}
	before := defs()
	require.Greater(t, len(before), 6)
	restore, err := s.DeferIndexes(ctx)
	require.NoError(t, err)
	during := defs()
	require.Len(t, during, 3, "only the three primary keys stay: %v", during)
	require.NoError(t, restore(ctx))
	require.Equal(t, before, defs())
}
