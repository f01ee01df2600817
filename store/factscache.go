package store

import (
	"context"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// factsCacheSize bounds the addresses whose facts one server keeps: about
// 250 bytes each (a token's metadata up to maxCachedToken more), so some
// 12 MB at most (under 65 MB if every address were a token).
const factsCacheSize = 50_000

// factsCache keeps, for a short time, the address book's facts of the
// addresses pages showed: reading them was two thirds of the database's
// work for a page (three index probes per address; pgbench on the page's
// statement: 4,100 tps with the facts, 12,300 without), and they change
// seldom (an account deployed, a domain bought) while the same addresses
// come back page after page. Facts this process writes are forgotten at
// once (SaveBatch); those another process writes show within the TTL.
type factsCache struct {
	ttl time.Duration
	lru *lru.Cache[string, cachedFacts]
	// gen counts the forgets: a read that began before one does not fill
	// the cache, so it cannot put back what was just forgotten.
	gen atomic.Uint64
	// warm holds, per account filter ("" for pages of no account), whether
	// the newest such page's whole book was in the cache: then the next is
	// read without its facts and only the ones missing are read apart. A
	// page read cold takes its facts in its own statement (one round trip,
	// not two) and fills the cache. Keyed so that a crawl through many
	// accounts keeps its one round trip while a page served again is warm.
	warm *lru.Cache[string, bool]
}

// warmPages bounds the account filters whose warmth is remembered.
const warmPages = 10_000

type cachedFacts struct {
	facts   chain.AddressFacts
	expires int64 // unix nanoseconds
}

func newFactsCache(ttl time.Duration) *factsCache {
	c, _ := lru.New[string, cachedFacts](factsCacheSize) // only a size below 1 fails
	w, _ := lru.New[string, bool](warmPages)
	return &factsCache{ttl: ttl, lru: c, warm: w}
}

// isWarm tells whether the newest page of the account filter key had its
// whole book cached.
func (c *factsCache) isWarm(key string) bool {
	w, _ := c.warm.Get(key)
	return w
}

// CacheAddressFacts keeps the address book's facts for ttl in this
// process (0 turns the cache off); serve sets it from ADDRESS_BOOK_TTL.
// Call it before the store serves reads.
func (s *Store) CacheAddressFacts(ttl time.Duration) {
	if ttl <= 0 {
		s.facts = nil
		return
	}
	s.facts = newFactsCache(ttl)
}

// lookup puts the unexpired cached facts of addrs into out and returns the
// addresses it had none for, in their order.
func (c *factsCache) lookup(addrs []string, out map[string]chain.AddressFacts) (missing []string) {
	now := time.Now().UnixNano()
	for _, a := range addrs {
		if e, ok := c.lru.Get(a); ok && e.expires > now {
			out[a] = e.facts
			continue
		}
		missing = append(missing, a)
	}
	return missing
}

// has tells whether every address of addrs has unexpired facts cached.
func (c *factsCache) has(addrs []string) bool {
	now := time.Now().UnixNano()
	for _, a := range addrs {
		if e, ok := c.lru.Peek(a); !ok || e.expires <= now {
			return false
		}
	}
	return true
}

// fill caches the facts of addrs (the zero facts for an address facts
// lacks: the store knows nothing of it, which is worth keeping too), read
// by a read that began at generation gen.
func (c *factsCache) fill(gen uint64, addrs []string, facts map[string]chain.AddressFacts) {
	expires := time.Now().Add(c.ttl).UnixNano()
	for _, a := range addrs {
		if c.gen.Load() != gen {
			return
		}
		if f := facts[a]; cacheable(&f) {
			c.lru.Add(a, cachedFacts{facts: f, expires: expires})
		}
	}
}

// forget drops the facts of addrs, after a write changed them.
func (c *factsCache) forget(addrs []string) {
	c.gen.Add(1)
	for _, a := range addrs {
		c.lru.Remove(a)
	}
}

// forgetWritten drops the cached facts of every address b writes facts of.
func (s *Store) forgetWritten(b *Batch) {
	c := s.facts
	if c == nil {
		return
	}
	var addrs []string
	for _, a := range b.Accounts {
		addrs = append(addrs, a.Address)
	}
	for _, i := range b.Interfaces {
		addrs = append(addrs, i.Address)
	}
	for _, d := range b.DNS {
		addrs = append(addrs, d.Address)
	}
	if len(addrs) > 0 {
		c.forget(addrs)
	}
}

// factsOf puts into out the facts of every address of addrs: the cached
// ones, then the others read from db (and cached). An address the store
// knows nothing of gets the zero facts.
func (s *Store) factsOf(ctx context.Context, db *bun.DB, addrs []string, out map[string]chain.AddressFacts) error {
	c := s.facts
	missing := addrs
	var gen uint64
	if c != nil {
		gen = c.gen.Load()
		missing = c.lookup(addrs, out)
	}
	if len(missing) == 0 {
		return nil
	}
	if err := s.scanFacts(ctx, db, missing, out); err != nil {
		return err
	}
	for _, a := range missing {
		if _, ok := out[a]; !ok {
			out[a] = chain.AddressFacts{}
		}
	}
	if c != nil {
		c.fill(gen, missing, out)
	}
	return nil
}
