package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/store"
)

// maxMetadataWorkers bounds METADATA_WORKERS: more fetches at once than
// this is a typo, not a plan.
const maxMetadataWorkers = 256

func (c *config) validMetadata() error {
	if c.MetadataWorkers < 0 || c.MetadataWorkers > maxMetadataWorkers {
		return fmt.Errorf("METADATA_WORKERS must be between 0 and %d, not %d", maxMetadataWorkers, c.MetadataWorkers)
	}
	if c.MetadataFetchTimeout <= 0 {
		return errors.New("METADATA_FETCH_TIMEOUT must be positive")
	}
	if c.MetadataMaxBytes < 1 {
		return errors.New("METADATA_MAX_BYTES must be at least 1")
	}
	_, err := c.metadataFetcher()
	return err
}

func (c *config) metadataFetcher() (*metadata.Fetcher, error) {
	return metadata.NewFetcher(metadata.FetchOptions{IPFSGateway: c.IPFSGateway, AllowPrivate: c.MetadataAllowPrivate,
		Timeout: c.MetadataFetchTimeout, MaxBytes: int64(c.MetadataMaxBytes)})
}

// startMetadata runs the token metadata worker in the background unless
// METADATA_WORKERS=0; stop cancels it and waits until it has handed back
// the tokens it was working on (before the store closes). Servers and
// followers sharing a database share its work: each token is claimed by
// one of them at a time.
func startMetadata(ctx context.Context, cfg *config, st *store.Store, log *slog.Logger) (w *metadata.Worker, stop func()) {
	if cfg.MetadataWorkers == 0 {
		return nil, func() {}
	}
	f, err := cfg.metadataFetcher()
	if err != nil { // validated at start
		log.Error("metadata worker not started", "error", err.Error())
		return nil, func() {}
	}
	w = metadata.NewWorker(st, f, metadata.WorkerOptions{Workers: cfg.MetadataWorkers, Logger: log})
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = w.Run(wctx)
	}()
	return w, func() {
		cancel()
		<-done
	}
}

// runMetadata is `tonql metadata refresh ADDRESS...`: the tokens at those
// addresses are made due now, their failed attempts forgotten; the worker
// of a running serve or follow on the database makes them within its poll
// (seconds). The database must exist and be migrated.
func runMetadata(ctx context.Context, args []string, e *env) error {
	const usage = "tonql metadata refresh [flags] ADDRESS..."
	if len(args) == 0 || (args[0] != "refresh" && args[0] != "-h" && args[0] != "--help") {
		fmt.Fprintf(e.stderr, "usage: %s\n", usage)
		return usageError{err: errors.New("give a metadata command: refresh ADDRESS..."), printed: true}
	}
	if args[0] == "refresh" {
		args = args[1:]
	}
	fs := newFlags(e, "metadata refresh", usage,
		"Makes the token metadata of each address due now: a running server's worker parses and fetches it again.")
	cfg := bindConfig(fs, e, groupDatabase)
	addrs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if len(addrs) == 0 {
		return usageError{err: errors.New("give at least one address")}
	}
	raw := make([]string, len(addrs))
	for i, a := range addrs {
		if raw[i], err = chain.NormalizeAddress(a); err != nil {
			return fmt.Errorf("%q: %v", a, err)
		}
	}
	st, err := openExisting(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	known, err := st.TokenMetadata(ctx, raw)
	if err != nil {
		return err
	}
	if _, err := st.RefreshTokenMetadata(ctx, raw, time.Now()); err != nil {
		return err
	}
	for i, a := range raw {
		if _, ok := known[a]; ok {
			fmt.Fprintf(e.stdout, "%s: due now\n", addrs[i])
		} else {
			fmt.Fprintf(e.stdout, "%s: no token at this address in the database\n", addrs[i])
		}
	}
	return nil
}
