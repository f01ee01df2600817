package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A statement whose context is cancelled while Postgres keeps it waiting
// (here on a table lock) answers the context's error at once, and its
// connection goes back to nobody: with a pool of one connection, the next
// read answers while the lock is still held. Before, pgdriver waited out
// its 10 s read timeout and answered an i/o timeout, the pool's one
// connection held all along. A plain query, a prepared one (whose PREPARE
// itself waits for the lock), and a page of actions.
func TestCancelledStatementLetsGoOfItsConnection(t *testing.T) {
	s := openMigratedPostgres(t) // the SQLite driver answers a cancelled context itself
	ctx := context.Background()
	s.LimitConnections(1)
	// The lock is held from a pool outside the store's.
	holder := postgresPool(postgresConnector(s.url, 10*time.Second))
	defer holder.Close()
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE actions IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	for _, read := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"query", func(ctx context.Context) error {
			var n int
			return s.db.QueryRowContext(ctx, "SELECT count(*) FROM actions").Scan(&n)
		}},
		{"page", func(ctx context.Context) error {
			_, err := s.ListActions(ctx, ActionFilter{Limit: 10}, NoBook)
			return err
		}},
		{"prepared", func(ctx context.Context) error {
			// As the pages' statements run (params.go): prepared on the
			// pool, executed with the request's context.
			st, err := s.db.PrepareContext(ctx, "SELECT count(*) FROM actions WHERE seq > $1")
			if err != nil {
				return err
			}
			defer st.Close()
			var n int
			return st.QueryRowContext(ctx, 0).Scan(&n)
		}},
	} {
		t.Run(read.name, func(t *testing.T) {
			// Backends waiting for a lock; an abandoned one may wait on
			// until the lock goes, so the read's own is a new one.
			waiting := func() map[int]bool {
				// Not in tx: a transaction sees one snapshot of the activity.
				rows, err := holder.QueryContext(ctx, `SELECT pid FROM pg_stat_activity
					WHERE datname = current_database() AND wait_event_type = 'Lock'`)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				pids := map[int]bool{}
				for rows.Next() {
					var pid int
					if err := rows.Scan(&pid); err != nil {
						t.Fatal(err)
					}
					pids[pid] = true
				}
				return pids
			}
			newWaiter := func(before map[int]bool) bool {
				for pid := range waiting() {
					if !before[pid] {
						return true
					}
				}
				return false
			}
			before := waiting()
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- read.run(rctx) }()
			// Cancel once the read waits for the lock.
			for !newWaiter(before) {
				select {
				case err := <-errc:
					t.Fatalf("the read answered before it waited: %v", err)
				case <-time.After(10 * time.Millisecond):
				}
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled read answered %v", err)
			}
			var n int
			if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM accounts").Scan(&n); err != nil {
				t.Fatalf("the next read, on the pool's one connection: %v", err)
			}
		})
	}
}
