package resolvers

import (
	"context"
	"crypto/sha256"
	"sync"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/getmethod"
)

// LibrarySource hands out library cells by hash (lite.Client does).
type LibrarySource interface {
	Libraries(ctx context.Context, hashes []ton.Bits256) (map[ton.Bits256][]byte, error)
}

// Library is one library cell found: its hash and the cell as a BOC.
type Library struct {
	Hash ton.Bits256
	BOC  []byte
}

// Libraries finds library cells by hash, in the order asked, once each:
// first in the library dictionary of the stored config, then, for the
// rest, on lite servers when configured. A hash neither knows is left
// out, as tonlib's getLibraries leaves it out.
func (r *Resolver) Libraries(ctx context.Context, hashes []ton.Bits256) ([]Library, error) {
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no database: libraries are read from the stored config")
	}
	found := map[ton.Bits256][]byte{}
	cfg, err := r.Store.Config(ctx)
	if err != nil {
		return nil, err
	}
	if cfg != nil && len(cfg.LibrariesBOC) > 0 {
		all, err := r.libs.of(cfg)
		if err != nil {
			return nil, apperr.Wrap(apperr.Unavailable, err, "the stored library dictionary does not decode")
		}
		for _, h := range hashes {
			if b, ok := all[h]; ok {
				found[h] = b
			}
		}
	}
	var missing []ton.Bits256
	for _, h := range hashes {
		if _, ok := found[h]; !ok {
			missing = append(missing, h)
		}
	}
	if src, ok := r.Lite.(LibrarySource); ok && len(missing) > 0 {
		more, err := src.Libraries(ctx, missing)
		if err != nil {
			return nil, apperr.Wrap(apperr.Unavailable, err, "libraries: the lite servers did not answer: "+err.Error())
		}
		for h, b := range more {
			found[h] = b
		}
	}
	out := make([]Library, 0, len(found))
	for _, h := range hashes {
		if b, ok := found[h]; ok {
			out = append(out, Library{Hash: h, BOC: b})
			delete(found, h) // once each
		}
	}
	return out, nil
}

// libraryCache keeps the newest config's dictionary split by hash: it is
// about 1 MB and takes a quarter of a second to split, and configs
// change a few times a year.
type libraryCache struct {
	mu   sync.Mutex
	key  [32]byte
	libs map[ton.Bits256][]byte
}

func (c *libraryCache) of(cfg *chain.ChainConfig) (map[ton.Bits256][]byte, error) {
	key := sha256.Sum256(cfg.LibrariesBOC)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.libs != nil && c.key == key {
		return c.libs, nil
	}
	libs, err := getmethod.LibraryBOCs(cfg.LibrariesBOC)
	if err != nil {
		return nil, err
	}
	c.key, c.libs = key, libs
	return libs, nil
}
