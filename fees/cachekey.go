package fees

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"

	"github.com/tonql/tonql/chain"
)

// keyVersion changes whenever the cached value's layout or the way numbers
// are made changes, so old entries are never read back.
const keyVersion = "fees/v2"

// What a cache entry holds: an estimate, or an emulation with its trace.
const (
	kindEstimate  = "estimate"
	kindEmulation = "emulation"
)

// cacheKey covers everything that changes the answer: the request, the
// config (and libraries), the account's version (its last transaction), the
// estimator's limits, and the time bucket (storage fees grow with time).
// Destination accounts are not known before emulating; they are checked on
// a hit instead (see lookup).
func (e *Estimator) cacheKey(r Request, cfg *preparedConfig, st *chain.AccountState, at ChainTime, kind string) string {
	h := sha256.New()
	var n [8]byte
	put := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	putUint := func(v uint64) {
		binary.BigEndian.PutUint64(n[:], v)
		h.Write(n[:])
	}
	put([]byte(keyVersion))
	put([]byte(kind))
	put([]byte(chain.RawAddress(r.Account)))
	put(r.Body)
	put(r.InitCode)
	put(r.InitData)
	put(r.Message)
	if r.IgnoreChksig {
		putUint(1)
	} else {
		putUint(0)
	}
	put(cfg.key[:])
	if st != nil {
		putUint(st.LastTxLt)
		put(st.LastTxHash[:])
		put([]byte(st.Status))
	} else {
		put([]byte(chain.AccountNonexist))
	}
	putUint(uint64(e.opts.MaxDepth))
	putUint(uint64(e.opts.MaxTransactions))
	putUint(e.opts.AssumedBalance)
	putUint(uint64(at.Unix) / uint64(e.opts.TimeBucket.Seconds()))
	putUint(at.Lt)
	put([]byte(e.opts.ClockName))
	return hex.EncodeToString(h.Sum(nil))
}

// cached is the stored form of an answer: an estimate or an emulation.
type cached struct {
	Result    *Result    `json:"r,omitempty"`
	Emulation *Emulation `json:"e,omitempty"`
	Origin    string     `json:"o"`
	Utime     uint32     `json:"u"`
	Deps      []dep      `json:"d"`
}

// result is the estimate the entry holds, directly or in its emulation.
func (c *cached) result() *Result {
	if c.Emulation != nil {
		return c.Emulation.Result
	}
	return c.Result
}

// lookup returns a cached answer whose destination states are all unchanged.
func (e *Estimator) lookup(ctx context.Context, key string) *cached {
	if e.cache == nil {
		return nil
	}
	b, ok := e.cacheGet(ctx, key)
	if !ok {
		return nil
	}
	var c cached
	if err := json.Unmarshal(b, &c); err != nil || c.result() == nil || c.result().Type != "query.fees" {
		return nil
	}
	for _, d := range c.Deps {
		st, err := e.account(ctx, d.Addr)
		if err != nil {
			return nil
		}
		var lt uint64
		var hash string
		if st != nil && len(st.ShardAccountBOC) > 0 {
			lt, hash = st.LastTxLt, st.LastTxHash.Hex()
		}
		if lt != d.Lt || hash != d.Hash {
			return nil
		}
	}
	res := c.result()
	if res.DestinationFees == nil {
		res.DestinationFees = []Fees{}
	}
	res.ConfigSource, res.Utime, res.Clock, res.Cached = c.Origin, c.Utime, e.opts.ClockName, true
	return &c
}

func (e *Estimator) remember(ctx context.Context, key string, c *cached, deps []dep) {
	if e.cache == nil {
		return
	}
	res := c.result()
	c.Origin, c.Utime, c.Deps = res.ConfigSource, res.Utime, deps
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	e.cache.Set(ctx, key, b, e.opts.CacheTTL)
	if e.local != nil {
		e.local.Set(ctx, key, b, min(e.opts.LocalCacheTTL, e.opts.CacheTTL))
	}
}

// cacheGet reads the local copy first, then the shared cache, keeping a
// local copy of what the shared cache returns.
func (e *Estimator) cacheGet(ctx context.Context, key string) ([]byte, bool) {
	if e.local != nil {
		if b, ok := e.local.Get(ctx, key); ok {
			return b, true
		}
	}
	b, ok := e.cache.Get(ctx, key)
	if ok && e.local != nil {
		e.local.Set(ctx, key, b, min(e.opts.LocalCacheTTL, e.opts.CacheTTL))
	}
	return b, ok
}

// seedOf derives the emulator's random seed from the message body.
// RandSeed is the random seed the request's emulation runs with (derived
// from its body, so the same request always gets the same one).
func (r Request) RandSeed() [32]byte { return seedOf(r.Body) }

func seedOf(body []byte) [32]byte { return sha256.Sum256(body) }
