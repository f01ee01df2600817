package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store/migrations"
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
	// Writing a batch makes the partition it needs, so there are
	// partition indexes to lose.
	require.NoError(t, s.ensurePartitions(ctx, []int64{0, migrations.LtSpan}))
	partitionIndexes := func() []string {
		var out []string
		require.NoError(t, s.db.NewRaw(`SELECT indexname FROM pg_indexes WHERE tablename LIKE 'action%\_p%' ORDER BY indexname`).Scan(ctx, &out))
		return out
	}
	before := defs()
	beforeParts := partitionIndexes()
	require.NotEmpty(t, beforeParts)
	require.Greater(t, len(before), 6)
	restore, err := s.DeferIndexes(ctx)
	require.NoError(t, err)
	during := defs()
	require.Len(t, during, 3, "only the three primary keys stay: %v", during)
	require.NoError(t, restore(ctx))
	require.Equal(t, before, defs())
	// Partitioned tables (migration 7): the rebuilt indexes are valid, and
	// each partition has its own again, as before.
	require.Equal(t, beforeParts, partitionIndexes())
	var invalid []string
	require.NoError(t, s.db.NewRaw(`SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid`).Scan(ctx, &invalid))
	require.Empty(t, invalid, "indexes left invalid")
}
