package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/redislog"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

func runServe(ctx context.Context, args []string, e *env) error {
	fs := newFlags(e, "serve", "tonql serve [flags]",
		"Runs the API server (GraphQL, REST, JSON-RPC); SIGINT or SIGTERM shut it down gracefully.\nFlags override environment variables, which override the defaults.")
	cfg := bindConfig(fs, e, groupAll)
	if err := fs.parseAll(args, cfg); err != nil {
		return err
	}
	// Start-up lines (settings, migrations, addresses, shutdown) are
	// structured log lines on the same stream as every other line.
	log := cfg.logger(e.stderr)
	slog.SetDefault(log)
	redislog.Install(log)
	cfg.log(log)
	tuneGC(e)

	// The address is taken first: a port in use or a bad LISTEN_ADDR fails
	// the command before it creates or migrates a database. Connections
	// that arrive meanwhile wait in the kernel's backlog until Serve.
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("LISTEN_ADDR=%s: %w", cfg.ListenAddr, err)
	}
	defer ln.Close() // a no-op once Serve has run: Shutdown closes it
	st, err := openStoreWith(ctx, cfg, logMigrations(log))
	if err != nil {
		return err
	}
	defer st.Close()
	st.CacheAddressFacts(cfg.AddressBookTTL)
	st.CacheTokenEntries(int64(cfg.TokenCacheBytes))
	// Token metadata is made in the background; requests read what it
	// stored. Stopped (deferred) before the store closes.
	_, stopMetadata := startMetadata(ctx, cfg, st, slog.Default())
	defer stopMetadata()

	c, err := cache.New(cfg.RedisURL, 100_000)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	// With lite servers, estimates refresh stale states from them, and
	// FOLLOW keeps the store up with the chain (docs/LIVE.md).
	var states fees.StateSource = st
	live := startLive(ctx, cfg, st, slog.Default())
	if live != nil {
		defer live.stop() // before the store closes
		states = live.state
	}
	est := fees.New(states, c, feeOptions(cfg, st))
	res := &resolvers.Resolver{Store: st, Fees: est, Testnet: cfg.Network == "testnet", GetMethodGas: int64(cfg.GetMethodGas)}
	// The hub tells streams about new actions; it is closed before the
	// HTTP server drains, so open streams end (with a resume cursor) and do
	// not hold the shutdown up.
	hub, err := notify.Start(ctx, notify.Options{Store: st, Book: res.AddressBookAndMetadata,
		MaxStreams: cfg.MaxStreams, MaxStreamsPerKey: cfg.MaxStreamsPerKey, MaxStreamsPerAddress: cfg.MaxStreamsPerAddr,
		MaxWatch: cfg.MaxStreamWatch, MaxWatchPerKey: cfg.MaxWatchedPerKey, PendingTimeout: cfg.PendingTimeout})
	if err != nil {
		return fmt.Errorf("streams: %w", err)
	}
	defer hub.Close()
	res.Notify = hub
	// Webhooks read the hub; they stop (their attempts under way are
	// abandoned and sent again later) before it closes.
	hooks, stopHooks := startWebhooks(ctx, cfg.Webhooks, st, hub, slog.Default())
	defer stopHooks()
	res.Webhooks = hooks
	if live != nil {
		res.Lite = live.lite
	}
	acc, err := openAccess(cfg, st, c)
	if err != nil {
		return err
	}
	defer acc.close()
	if live != nil {
		acc.ready, acc.metrics = live.observe(acc.ready, acc.metrics)
	}
	acc.metrics = observeStreams(hub, acc.metrics)
	// The meter's owner goroutine outlives the HTTP server: it is stopped
	// (and makes its final flush) only after requests have drained.
	mctx, stopMeter := context.WithCancel(context.WithoutCancel(ctx))
	meterDone := make(chan error, 1)
	go func() { meterDone <- acc.meter.Run(mctx) }()
	stopMetering := func() error {
		stopMeter()
		if err := <-meterDone; err != nil {
			return fmt.Errorf("metering: final flush: %w", err)
		}
		return nil
	}
	srv := &http.Server{
		Handler: server.New(server.Options{Resolver: res, Access: acc.access, RequestTimeout: cfg.RequestTimeout,
			Cost: cfg.costLimits(), Ready: acc.ready, Metrics: acc.metrics, Origins: server.ParseOrigins(cfg.CORSOrigins), AccessLog: cfg.accessLog()}),
		ConnContext:       server.ConnContext, // streams size their send buffers
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	// Before "listening on": what the profiler could read is settled
	// before anything is served.
	sampleMemory(cfg.PprofAddr != "")
	base := "http://" + ln.Addr().String()
	log.Info("listening", "addr", ln.Addr().String(),
		"explorer", base+"/",
		"graphql", base+"/graphql", "subscriptions", "ws://"+ln.Addr().String()+"/graphql",
		"actions", base+"/api/v3/actions", "stream", base+"/api/v3/actions/stream",
		"fees", base+"/api/v2/estimateFee", "jsonrpc", base+"/api/v2/jsonRPC",
		"preview", base+"/api/v3/emulate", "fee_clock", cfg.FeeClock)

	if cfg.PprofAddr != "" {
		stopPprof, err := servePprof(cfg.PprofAddr, log)
		if err != nil {
			return err
		}
		defer stopPprof()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return errors.Join(err, stopMetering())
	case <-ctx.Done():
	}
	// Shutdown order: stop accepting and drain requests, then persist the
	// request units, then close Redis and the store (deferred) once
	// nothing can use them.
	log.Info("shutting down")
	stopHooks()
	hub.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return errors.Join(fmt.Errorf("shutdown: %w", err), stopMetering())
	}
	if err := stopMetering(); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openStore connects and migrates; every command that touches data uses
// it. It names each migration it applies on stdout, the command's output.
func openStore(ctx context.Context, cfg *config, e *env) (*store.Store, error) {
	return openStoreWith(ctx, cfg, func(m string) { fmt.Fprintf(e.stdout, "migrated: %s\n", m) })
}

// logMigrations reports migrations as log lines, for the long-running
// commands whose output is their log.
func logMigrations(log *slog.Logger) func(string) {
	return func(m string) { log.Info("migrated", "migration", m) }
}

// openStoreWith is openStore telling migrated about each migration.
func openStoreWith(ctx context.Context, cfg *config, migrated func(string)) (*store.Store, error) {
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if errors.Is(err, store.ErrNoDatabase) { // Postgres: only SQLite files are created
		return nil, fmt.Errorf("no database at DATABASE_URL=%s (%w); tonql creates SQLite files but not Postgres databases: create it (createdb NAME, or CREATE DATABASE NAME in psql), then run this again",
			redact(cfg.DatabaseURL), err)
	}
	if err != nil {
		return nil, err
	}
	if err := st.AddReplicas(ctx, cfg.replicaURLs(), cfg.ReplicaMaxLag); err != nil {
		st.Close()
		return nil, err
	}
	st.LimitConnections(cfg.DatabaseMaxConns)
	applied, err := st.Migrate(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	for _, m := range applied {
		migrated(m)
	}
	return st, nil
}

// openExisting opens a database that must be there already, created and
// migrated (commands that only read, or change rows of, one); the error
// names the database it looked for, its password hidden.
func openExisting(ctx context.Context, cfg *config) (*store.Store, error) {
	st, err := store.OpenExisting(ctx, cfg.DatabaseURL)
	switch {
	case errors.Is(err, store.ErrNoDatabase):
		create := "create one with 'tonql migrate'"
		if !strings.HasPrefix(cfg.DatabaseURL, "sqlite:") {
			create = "create it (createdb NAME, or CREATE DATABASE NAME in psql) and run 'tonql migrate'"
		}
		return nil, fmt.Errorf("no database at DATABASE_URL=%s (%w); %s, or point DATABASE_URL or -database-url at yours",
			redact(cfg.DatabaseURL), err, create)
	case errors.Is(err, store.ErrNotMigrated):
		return nil, fmt.Errorf("the database at DATABASE_URL=%s is not ready for this tonql (%w); run 'tonql migrate' first",
			redact(cfg.DatabaseURL), err)
	case err != nil:
		return nil, fmt.Errorf("DATABASE_URL=%s: %w", redact(cfg.DatabaseURL), err)
	}
	st.LimitConnections(cfg.DatabaseMaxConns)
	return st, nil
}

func runMigrate(ctx context.Context, args []string, e *env) error {
	fs := newFlags(e, "migrate", "tonql migrate [flags]",
		"Applies the database's migrations (serve and import do too); a SQLite file is created when missing,\na Postgres database must exist already.")
	cfg := bindConfig(fs, e, groupDatabase)
	if err := fs.parseAll(args, cfg); err != nil {
		return err
	}
	st, err := openStore(ctx, cfg, e)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintln(e.stdout, "database is up to date")
	return nil
}

// observeStreams adds the stream gauges to /metrics.
func observeStreams(hub *notify.Hub, m server.MetricsSources) server.MetricsSources {
	prev := m.Gauges
	m.Gauges = func() []server.Gauge {
		var g []server.Gauge
		if prev != nil {
			g = prev()
		}
		s := hub.Stats()
		return append(g,
			server.Gauge{Name: "tonql_streams_open", Help: "Open action streams (SSE and GraphQL subscriptions).", Value: float64(s.Streams)},
			server.Gauge{Name: "tonql_stream_events_total", Help: "Events delivered to action streams.", Value: float64(s.Delivered)},
			server.Gauge{Name: "tonql_streams_cut_slow_total", Help: "Streams ended because the client read too slowly.", Value: float64(s.CutSlow)},
			server.Gauge{Name: "tonql_streams_revoked_total", Help: "Streams ended because their key was revoked.", Value: float64(s.Revoked)},
			server.Gauge{Name: "tonql_stream_last_seq", Help: "Highest action seq the hub has told.", Value: float64(s.Last)},
		)
	}
	return m
}

// feeOptions sets the estimator's clock: FEE_CLOCK=head runs estimates at
// the newest block the database holds (an imported snapshot, whose signed
// messages the wall clock would find expired), its time and logical time.
func feeOptions(cfg *config, st *store.Store) fees.Options {
	if cfg.FeeClock != fees.ClockHead {
		return fees.Options{}
	}
	clock := fees.NewHeadClock(st.HeadTime, time.Second)
	return fees.Options{Clock: clock.Now, ClockName: fees.ClockHead}
}

// serveGCPercent is the collector's target for the server. Its live heap
// is small (caches of a few MB) while a page allocates tens of KB, so at
// Go's default of 100 the collector ran every few dozen requests and took
// a fifth of a page's CPU; at 400 a page costs a quarter less CPU for tens
// of MB more heap (docs/PERFORMANCE.md). GOGC in the environment wins.
const serveGCPercent = 400

func tuneGC(e *env) {
	if e.getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
}
