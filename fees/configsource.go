package fees

import (
	"context"
	"sync"
	"time"

	"github.com/tonql/tonql/chain"
)

// configReader reuses the source's config for Options.ConfigMaxAge. With
// its library dictionary the config is about 1 MB, and a store hands out a
// fresh copy on every read; reading and hashing it per estimate cost more
// than the emulation itself, while the chain changes its config a few times
// a year. A changed config is picked up within ConfigMaxAge.
type configReader struct {
	maxAge time.Duration

	mu      sync.Mutex
	cfg     *chain.ChainConfig // nil: the source has none (embedded fallback)
	read    time.Time          // wall clock, never Options.Now (tests pin that to a block's time)
	valid   bool
	loading bool // one goroutine refreshes; the others keep the previous config meanwhile
}

func (c *configReader) get(ctx context.Context, src StateSource) (*chain.ChainConfig, error) {
	if c.maxAge < 0 {
		return c.fetch(ctx, src)
	}
	c.mu.Lock()
	if c.valid && (c.loading || time.Since(c.read) < c.maxAge) {
		cfg := c.cfg
		c.mu.Unlock()
		return cfg, nil
	}
	c.loading = true
	c.mu.Unlock()
	cfg, err := c.fetch(ctx, src)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loading = false
	if err != nil {
		return nil, err // failures are not remembered: the next estimate retries
	}
	c.cfg, c.read, c.valid = cfg, time.Now(), true
	return cfg, nil
}

// fetch reads the source's config; "not found" is no config, not an error.
func (c *configReader) fetch(ctx context.Context, src StateSource) (*chain.ChainConfig, error) {
	cfg, err := src.Config(ctx)
	if err != nil && isNotFound(err) {
		return nil, nil
	}
	return cfg, err
}
