package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

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
