package store

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// Prepared statements answer right under concurrency, past the cache's
// bound (evicted ones are closed and prepared again when asked), and a
// query whose statement was closed under it still answers.
func TestPreparedStatements(t *testing.T) {
	ctx := context.Background()
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			s, err := Open(ctx, db.URL)
			require.NoError(t, err)
			defer s.Close()
			st := newStatements(s.db.DB, 4)
			ask := func(shape, v int) int {
				p := newParams(s.db)
				q := fmt.Sprintf("SELECT %s + %d", p.add(int64(v)), shape)
				rows, err := st.query(ctx, q, p.vals)
				require.NoError(t, err)
				defer rows.Close()
				require.True(t, rows.Next())
				var n int
				require.NoError(t, rows.Scan(&n))
				return n
			}
			var wg sync.WaitGroup
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < 50; i++ {
						shape := (g + i) % 10 // more shapes than the cache holds
						if got := ask(shape, i); got != i+shape {
							t.Errorf("shape %d, value %d: got %d", shape, i, got)
						}
					}
				}(g)
			}
			wg.Wait()
			require.LessOrEqual(t, st.cache.Len(), 4)

			// A statement closed under a caller (evicted meanwhile).
			p := newParams(s.db)
			q := "SELECT " + string(p.add(int64(7)))
			rows, err := st.query(ctx, q, p.vals)
			require.NoError(t, err)
			require.NoError(t, rows.Close())
			stale, _ := st.cache.Peek(q)
			require.NoError(t, stale.Close())
			rows, err = st.query(ctx, q, p.vals)
			require.NoError(t, err)
			require.NoError(t, rows.Close())
		})
	}
}
