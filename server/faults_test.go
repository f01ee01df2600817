package server_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/metering"
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

// A private Redis is killed and restarted under keyed load on every route
// family, with metering and the shared rate limit on it: no request fails,
// and the units in the store equal the requests answered 200.
func TestRedisKilledUnderLoadUnitsEqualAnswers(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			srv := cachetest.StartRedis(t)
			rdb, err := metering.DialRedis("redis://" + srv.Addr + "/0")
			require.NoError(t, err)
			defer rdb.Close()
			e := newAccessEnv(t, db, accessConfig{require: true, fees: true})
			logs := &testenv.SyncBuffer{}
			logger := slog.New(slog.NewJSONHandler(logs, nil))
			e.access.Limiter = ratelimit.NewShared(ratelimit.SharedOptions{Redis: rdb, Logger: logger})
			m := metering.New(metering.Options{Store: e.st, Redis: rdb, Logger: logger,
				PushEvery: 5 * time.Millisecond, FlushEvery: 20 * time.Millisecond})
			stop := startMeter(m)
			h := e.handler(m)
			key, _ := e.newKey(t, "k", ratelimit.Limit{Rate: 1e6, Burst: 1e6})
			reqs := []struct{ method, path, body string }{
				{http.MethodGet, "/api/v3/actions?limit=1", ""},
				{http.MethodPost, "/graphql", `{"query":"{ actions(limit: 1) { actions { action_id } } }"}`},
				{http.MethodPost, "/api/v2/jsonRPC", `{"jsonrpc":"2.0","id":1,"method":"estimateFee","params":` + walletDeploy(t) + `}`},
			}
			const workers, each = 8, 150
			var sent, ok atomic.Int64
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range each {
						switch sent.Add(1) {
						case workers * each / 3:
							srv.Stop()
						case 2 * workers * each / 3:
							srv.Restart()
						}
						rq := reqs[(w+i)%len(reqs)]
						rec := doRequest(h, rq.method, "/"+key+rq.path, rq.body)
						if rec.Code == http.StatusOK {
							ok.Add(1)
						}
					}
				})
			}
			wg.Wait()
			require.NoError(t, stop())
			answered := ok.Load()
			require.EqualValues(t, workers*each, answered, "Redis down fails no request")
			require.Equal(t, answered, e.units(t, key))
			// One line per outage and subsystem, not one per request: the
			// outage itself, and at most one more for a call that timed out
			// while two busy cores starved Redis (the rate limiter's calls
			// have a short deadline of their own).
			for _, line := range []string{"ratelimit: Redis unavailable", "metering: Redis unavailable"} {
				require.LessOrEqual(t, strings.Count(logs.String(), line), 2, logs.String())
			}
		})
	}
}
