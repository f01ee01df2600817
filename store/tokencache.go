package store

import (
	"context"
	"math"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// DefaultTokenCacheBytes is the memory a server gives the tokens it keeps
// rendered (TOKEN_CACHE_BYTES): some 40,000 tokens of 1.6 KB.
const DefaultTokenCacheBytes = 64 << 20

// tokenCache keeps tokens' metadata as pages show it, each with its
// rendered entry of the metadata object (chain.TokenMetadata.WithEntry),
// under the version of its row (token_metadata.version, which every write
// that changes what a page shows increments). A page reads only the
// address and version of each of its tokens; a token whose version is
// cached is copied as bytes, the others are read whole in a second
// statement and kept. Reading, parsing and rendering each token with each
// page was a third of an uncached page whose book is all tokens
// (docs/PERFORMANCE.md).
//
// Nothing needs invalidating: a token the worker or the registry changed,
// in this process or any other sharing the database, has a new version,
// and the next page reads it. It is bounded by the bytes its tokens hold,
// least recently shown first out.
type tokenCache struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[string, cachedToken]
	bytes    int64 // held by the cached tokens, as tokenSize counts
	maxBytes int64
}

type cachedToken struct {
	version int64
	md      *chain.TokenMetadata // with its entry; shared by every page, never changed
	size    int64
}

func newTokenCache(maxBytes int64) *tokenCache {
	c := &tokenCache{maxBytes: maxBytes}
	// Bounded by bytes (add), not by count.
	c.lru, _ = simplelru.NewLRU(math.MaxInt, func(_ string, e cachedToken) { c.bytes -= e.size })
	return c
}

// CacheTokenEntries sets the memory kept for rendered tokens (0: none, each
// page then reads its tokens whole); serve sets it from TOKEN_CACHE_BYTES.
// Open keeps DefaultTokenCacheBytes. Call it before the store serves reads.
func (s *Store) CacheTokenEntries(maxBytes int64) {
	if maxBytes <= 0 {
		s.tokens = nil
		return
	}
	s.tokens = newTokenCache(maxBytes)
}

// tokenSize estimates what a cached token holds: its row's text (the
// token's strings are slices of it), its entry, the address and the
// structures around them.
func tokenSize(addr, text string, md *chain.TokenMetadata) int64 {
	const overhead = 400 // TokenMetadata, the values it points to, the LRU's element and map slot
	return int64(len(addr) + len(text) + md.EntrySize() + overhead)
}

// lookup puts the cached tokens of refs whose version matches into out
// and returns the addresses it did not have.
func (c *tokenCache) lookup(refs *tokenRefs, out map[string]chain.AddressFacts) (missing []string) {
	if c == nil {
		return refs.addrs
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, a := range refs.addrs {
		e, ok := c.lru.Get(a)
		if !ok || e.version != refs.versions[i] {
			missing = append(missing, a)
			continue
		}
		f := out[a]
		f.Token = e.md
		out[a] = f
	}
	return missing
}

// add keeps md (with its entry) as the token of addr at version, unless it
// alone is larger than a sixteenth of the cache.
func (c *tokenCache) add(addr string, version int64, md *chain.TokenMetadata, size int64) {
	if c == nil || size > c.maxBytes/16 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(addr); ok {
		if old.version > version {
			return // a read that began earlier than the one that cached old
		}
		c.bytes -= old.size // Add replaces it in place, without the eviction callback
	}
	c.lru.Add(addr, cachedToken{version: version, md: md, size: size})
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.lru.RemoveOldest()
	}
}

// tokenRefs are the tokens a facts statement found (rowToken rows): their
// addresses and versions.
type tokenRefs struct {
	addrs    []string
	versions []int64
}

func (r *tokenRefs) add(addr string, version int64) {
	r.addrs, r.versions = append(r.addrs, addr), append(r.versions, version)
}

// tokenRowsSQL reads tokens whole: address, version and the object of
// tokenFactColumns.
func tokenRowsSQL(db *bun.DB) string {
	return `SELECT address, version, ` + tokenFactSQL(db) + ` FROM token_metadata WHERE address IN (?)`
}

// resolveTokens sets the token of each of refs in out: from the cache when
// its version is there, else read whole (and cached).
func (s *Store) resolveTokens(ctx context.Context, db *bun.DB, refs *tokenRefs, out map[string]chain.AddressFacts) error {
	if len(refs.addrs) == 0 {
		return nil
	}
	c := s.tokens
	missing := c.lookup(refs, out)
	if len(missing) == 0 {
		return nil
	}
	rows, err := db.QueryContext(ctx, tokenRowsSQL(db), bun.In(missing))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var addr, text string
		var version int64
		if err := rows.Scan(&addr, &version, &text); err != nil {
			return err
		}
		parsed, err := parseTokenFact(addr, text)
		if err != nil {
			return err
		}
		md := parsed.WithEntry()
		c.add(addr, version, md, tokenSize(addr, text, md))
		f := out[addr]
		f.Token = md
		out[addr] = f
	}
	return rows.Err()
}
