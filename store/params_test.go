package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/testenv"
)

// Prepared statements answer right under concurrency, past the cache's
// bound (evicted ones are closed and prepared again when asked), and a
// query whose statement was closed under it still answers.
func TestPreparedStatements(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
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

// The array literals of pgPage's parameters read back as the values given.
func TestArrayLiterals(t *testing.T) {
	dsn := testenv.NewPostgresDatabase(t)
	if dsn == "" {
		t.Skip("array parameters are Postgres's")
	}
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	texts := []string{"a", `q"uote`, `back\slash`, "sp ace", "{brace}", "comma,", "NULL", "", "é+/="}
	var got []string
	require.NoError(t, s.db.DB.QueryRowContext(ctx, "SELECT array_to_json($1::text[])::text", textArray(texts)).Scan(new(string)))
	rows, err := s.db.DB.QueryContext(ctx, "SELECT unnest($1::text[])", textArray(texts))
	require.NoError(t, err)
	for rows.Next() {
		var v string
		require.NoError(t, rows.Scan(&v))
		got = append(got, v)
	}
	require.NoError(t, rows.Close())
	require.Equal(t, texts, got)
	var sum int64
	require.NoError(t, s.db.DB.QueryRowContext(ctx, "SELECT sum(x) FROM unnest($1::bigint[]) AS x", intArray([]int64{1, -2, 9_000_000_000_000_000})).Scan(&sum))
	require.Equal(t, int64(8_999_999_999_999_999), sum)
}

// A statement that cannot be written is the read's error, as bun's Scan
// returns it, on every path that writes a query's text itself (bun's String
// panics on it): planned for the values, prepared by page, by keys.
func TestUnwritableQueryIsAnError(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		broken := errors.New("cannot write this query")
		q := func(rows *[]txRow) *bun.SelectQuery {
			return s.db.NewSelect().Model(rows).Err(broken)
		}
		var rows []txRow
		require.ErrorIs(t, scanQuery(ctx, s.db, q(&rows), &rows), broken)
		require.ErrorIs(t, s.scanPage(ctx, s.db, q(&rows), newParams(s.db), 10, 0, &rows), broken)
		require.ErrorIs(t, s.scanPage(ctx, s.db, q(&rows), inlineParams(s.db), 10, 0, &rows), broken)
		require.ErrorIs(t, s.scanByKeys(ctx, s.db, q(&rows), "hash", []string{"a"}, &rows), broken)
	})
}
