package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tonql/tonql/follow"
	"github.com/tonql/tonql/lite"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// liteSettings says where lite servers come from; with neither variable set
// it is the public config of the network, downloaded.
func (c *config) liteSettings() lite.Settings {
	return lite.Settings{ConfigRef: c.LiteServersConfig, Servers: c.LiteServers, Network: c.Network}
}

// liteConfigured: serve reaches for the network only when asked to (lite
// servers given, or FOLLOW), so the zero-setup server stays offline.
func (c *config) liteConfigured() bool {
	return c.LiteServersConfig != "" || c.LiteServers != "" || c.Follow
}

func (c *config) liteDescription() string {
	if !c.liteConfigured() {
		return "(none: fees from stored states only)"
	}
	return c.liteSettings().Describe()
}

func runFollow(ctx context.Context, args []string, e *env) error {
	fs := newFlags(e, "follow", "tonql follow [flags]",
		"Follows the chain from lite servers into the database (docs/LIVE.md).")
	cfg := bindConfig(fs, e, groupDatabase|groupNetwork|groupLite|groupMetadata)
	from := fs.Uint("from", 0, "first masterchain seqno on a first run; 0 = the latest block (a stored cursor always wins)")
	maxRetries := fs.Int("max-retries", 0, "give up after this many failed attempts in a row; 0 = never")
	if err := fs.parseAll(args, cfg); err != nil {
		return err
	}
	if *maxRetries < 0 {
		return fmt.Errorf("--max-retries must not be negative")
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	cfg.Follow = true
	cfg.log(log)
	st, err := openStoreWith(ctx, cfg, logMigrations(log))
	if err != nil {
		return err
	}
	defer st.Close()
	_, stopMetadata := startMetadata(ctx, cfg, st, log)
	defer stopMetadata()
	lc := lite.New(cfg.liteSettings().Load, lite.Options{Logger: log})
	defer closeLite(lc)
	unlock, err := lockFollower(ctx, st, log)
	if err != nil {
		return err
	}
	defer unlock()
	f := follow.New(st, follow.NewLiteSource(lc), follow.Options{From: uint32(*from), MaxRetries: *maxRetries, Logger: log,
		Tokens: stateHook(st, log, cfg.Network == "testnet")})
	return f.Run(ctx)
}

// lockFollower takes the follower lock: a second follower on one Postgres
// waits here until the first stops.
func lockFollower(ctx context.Context, st *store.Store, log *slog.Logger) (func(), error) {
	unlock, err := st.LockFollower(ctx, follow.DefaultName, 5*time.Second, func() {
		log.Warn("another follower holds the lock on this database; waiting for it to stop")
	})
	if err != nil {
		return nil, fmt.Errorf("follower lock: %w", err)
	}
	return unlock, nil
}

// liveChain is what serve runs when lite servers are configured: the fee
// estimator's fresh-state source and, with FOLLOW, the follower.
type liveChain struct {
	lite     *lite.Client
	state    *follow.FreshState
	follower *follow.Follower // nil without FOLLOW
	stop     func()           // stops the follower, waits for it, releases the lock
}

// startLive returns nil when no lite servers are configured. The follower
// never gives up inside serve: with lite servers down the API keeps
// answering from the store and the follower keeps retrying with backoff.
func startLive(ctx context.Context, cfg *config, st *store.Store, log *slog.Logger) *liveChain {
	if !cfg.liteConfigured() {
		return nil
	}
	lc := lite.New(cfg.liteSettings().Load, lite.Options{Logger: log})
	lv := &liveChain{lite: lc, state: follow.NewFreshState(st, lc, cfg.StateMaxAge, log)}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	if cfg.Follow {
		lv.follower = follow.New(st, follow.NewLiteSource(lc), follow.Options{Logger: log, Tokens: stateHook(st, log, cfg.Network == "testnet")})
		go func() {
			defer close(done)
			unlock, err := lockFollower(fctx, st, log)
			if err != nil {
				if fctx.Err() == nil {
					log.Error("follower not started", "error", err.Error())
				}
				return
			}
			defer unlock()
			if err := lv.follower.Run(fctx); err != nil {
				log.Error("follower stopped", "error", err.Error())
			}
		}()
	} else {
		close(done)
	}
	lv.stop = func() {
		cancel()
		<-done
		closeLite(lc)
	}
	return lv
}

// closeLite waits briefly for abandoned dials; a lite server that keeps a
// handshake hanging must not hold the process.
func closeLite(lc *lite.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = lc.Close(ctx)
}

// observe adds the lite servers to /readyz (degraded, not down: the store
// still answers) and the follower's progress to /metrics.
func (lv *liveChain) observe(ready []server.ReadyCheck, m server.MetricsSources) ([]server.ReadyCheck, server.MetricsSources) {
	ready = append(ready, server.ReadyCheck{Name: "lite_servers", Check: lv.lite.Ping, Optional: true})
	if lv.follower == nil {
		return ready, m
	}
	f := lv.follower
	m.Gauges = func() []server.Gauge {
		s := f.Stats()
		return []server.Gauge{
			{Name: "tonql_follow_cursor_seqno", Help: "Last masterchain block stored.", Value: float64(s.Cursor)},
			{Name: "tonql_follow_head_seqno", Help: "Newest masterchain block the lite servers reported.", Value: float64(s.Head)},
			{Name: "tonql_follow_lag_blocks", Help: "Masterchain blocks the store is behind the head.", Value: float64(s.LagBlocks())},
			{Name: "tonql_follow_lag_seconds", Help: "Seconds between now and the stored block's time.", Value: s.Lag(time.Now()).Seconds()},
			{Name: "tonql_follow_blocks_total", Help: "Masterchain steps imported by this process.", Value: float64(s.Blocks)},
			{Name: "tonql_follow_transactions_total", Help: "Transactions written by the follower.", Value: float64(s.Transactions)},
			{Name: "tonql_follow_failures_total", Help: "Failed follower attempts.", Value: float64(s.Failures)},
		}
	}
	return ready, m
}
