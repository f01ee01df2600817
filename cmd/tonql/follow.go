package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/tonql/tonql/follow"
	"github.com/tonql/tonql/lite"
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
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	cfg := bindConfig(fs, e)
	from := fs.Uint("from", 0, "first masterchain seqno on a first run; 0 = the latest block (a stored cursor always wins)")
	maxRetries := fs.Int("max-retries", 0, "give up after this many failed attempts in a row; 0 = never")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if *maxRetries < 0 {
		return fmt.Errorf("--max-retries must not be negative")
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	cfg.Follow = true
	cfg.print(e.stdout)
	st, err := openStore(ctx, cfg, e)
	if err != nil {
		return err
	}
	defer st.Close()
	lc := lite.New(cfg.liteSettings().Load, lite.Options{Logger: log})
	defer closeLite(lc)
	f, unlock, err := newFollower(ctx, st, lc, follow.Options{From: uint32(*from), MaxRetries: *maxRetries, Logger: log})
	if err != nil {
		return err
	}
	defer unlock()
	return f.Run(ctx)
}

// newFollower takes the follower lock (a second follower on one Postgres
// waits here) and makes the follower over lite servers.
func newFollower(ctx context.Context, st *store.Store, lc *lite.Client, opt follow.Options) (*follow.Follower, func(), error) {
	log := opt.Logger
	unlock, err := st.LockFollower(ctx, follow.DefaultName, 5*time.Second, func() {
		log.Warn("another follower holds the lock on this database; waiting for it to stop")
	})
	if err != nil {
		return nil, nil, fmt.Errorf("follower lock: %w", err)
	}
	return follow.New(st, follow.NewLiteSource(lc), opt), unlock, nil
}

// closeLite waits briefly for abandoned dials; a lite server that keeps a
// handshake hanging must not hold the process.
func closeLite(lc *lite.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = lc.Close(ctx)
}
