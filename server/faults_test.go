package server_test

import (
	"context"
	"database/sql"
	"net/http"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
)

// Defect 10: after Postgres dropped the server's connections (a restart
// with no traffic during it, here pg_terminate_backend of every one), the
// first requests got 503: database/sql handed out the dead pooled
// connections. Each is now checked before reuse; every request succeeds.
func TestPostgresConnectionsKilledThenRequestsSucceed(t *testing.T) {
	dsn := testenv.NewPostgresDatabase(t)
	if dsn == "" {
		t.Skip("needs Postgres")
	}
	e := newAccessEnv(t, testenv.Database{Name: "postgres", URL: dsn}, accessConfig{require: true})
	m := e.meter()
	h := e.handler(m)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	// Fill the pool with several connections.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions?limit=1", "")
			}
		})
	}
	wg.Wait()

	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	defer admin.Close()
	var killed int
	require.NoError(t, admin.QueryRowContext(context.Background(),
		`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&killed))
	require.Positive(t, killed)
	// pg_terminate_backend only signals; wait until the backends are gone
	// (as after a restart), so their goodbyes are on the sockets.
	for others := 1; others > 0; {
		require.NoError(t, admin.QueryRowContext(context.Background(),
			`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&others))
		runtime.Gosched()
	}

	for i := range 10 {
		rec := doRequest(h, http.MethodGet, "/"+key+"/api/v3/actions?limit=1", "")
		require.Equal(t, http.StatusOK, rec.Code, "request %d after the kill: %s", i, rec.Body.String())
	}
	require.NoError(t, m.Flush(t.Context()))
	require.EqualValues(t, 8*5+10, e.units(t, key))
}
