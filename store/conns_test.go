package store

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// LimitConnections caps the backends a store uses at once: six reads that
// each hold a connection for a while run on two backends, waiting their
// turn, where the default pool gives each its own. Replicas get the same
// cap.
func TestLimitConnections(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		if !s.IsPostgres() {
			s.LimitConnections(1) // SQLite keeps its own pool
			require.Equal(t, 8, s.db.Stats().MaxOpenConnections)
			return
		}
		require.Equal(t, 6, backendsUsed(t, s, 6), "the default pool gives each read its own connection")
		s.LimitConnections(2)
		require.Equal(t, 2, backendsUsed(t, s, 6))

		require.NoError(t, s.AddReplicas(context.Background(), []string{s.url}, time.Second))
		s.LimitConnections(3)
		require.Equal(t, 3, s.db.Stats().MaxOpenConnections)
		require.Equal(t, 3, s.replicas.all[0].db.Stats().MaxOpenConnections)
	})
}

// backendsUsed runs n reads at once on s's primary, each holding its
// connection for a while, and counts the Postgres backends that ran them.
func backendsUsed(t *testing.T, s *Store, n int) int {
	t.Helper()
	var (
		mu   sync.Mutex
		pids = map[int]bool{}
		wg   sync.WaitGroup
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var pid int
			err := s.db.QueryRowContext(context.Background(), "SELECT pg_backend_pid() FROM pg_sleep(0.2)").Scan(&pid)
			assert.NoError(t, err)
			mu.Lock()
			pids[pid] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	return len(pids)
}

// A read timeout in the database URL wins over the store's default of
// 10 s: with read_timeout=1s a statement that answers after 2 s loses its
// connection, which the default would have waited for.
func TestURLReadTimeoutWins(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		if !s.IsPostgres() {
			return
		}
		ctx := context.Background()
		_, err := s.db.ExecContext(ctx, "SELECT pg_sleep(2)")
		require.NoError(t, err, "the default read timeout waits")
		short, err := Open(ctx, withParam(s.url, "read_timeout", "1s", true))
		require.NoError(t, err)
		defer short.Close()
		_, err = short.db.ExecContext(ctx, "SELECT pg_sleep(2)")
		require.ErrorContains(t, err, "timeout")
	})
}
