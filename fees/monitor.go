package fees

import (
	"time"

	"github.com/tonql/tonql/cache"
)

// What an Estimator shows for monitoring, as plain numbers and a callback,
// so this package needs no metrics library (the server turns them into
// Prometheus metrics).

// PoolStats reports the emulator pool now.
func (e *Estimator) PoolStats() PoolStats { return e.pool.stats() }

// OnEmulation sets f to be called with the time each emulation held its
// emulator (the message and its whole trace, queueing excluded), failed
// ones too. A later call replaces f; nil stops the calls.
func (e *Estimator) OnEmulation(f func(time.Duration)) {
	if f == nil {
		e.onEmu.Store(nil)
		return
	}
	e.onEmu.Store(&f)
}

// CacheCounts reports the hits and misses of the estimator's cache; ok is
// false when it has none or the cache does not count.
func (e *Estimator) CacheCounts() (hits, misses int64, ok bool) {
	c, ok := e.cache.(cache.Counter)
	if !ok {
		return 0, 0, false
	}
	hits, misses = c.Counts()
	return hits, misses, true
}
