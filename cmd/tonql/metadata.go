package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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
