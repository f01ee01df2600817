package fees

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tonql/tonql/apperr"
)

// Names of the clocks an estimate can run at (FEE_CLOCK).
const (
	ClockWall = "wall" // the wall clock: a server that follows the chain
	ClockHead = "head" // the newest block or account state the database holds: a snapshot
)

// ChainTime is the moment an estimate runs at: unix time (storage fees
// accrue up to it, wallets check expiry against it) and the logical time
// of the block it would land in. Lt 0 leaves the emulator's default, the
// block after the account's last transaction; a snapshot fixes it, so that
// contracts which read the logical time (query ids made of it) see what
// they saw on the chain.
type ChainTime struct {
	Unix uint32
	Lt   uint64
}

// HeadSource reads the newest data a database holds (store.HeadTime): the
// chain time and logical time of its newest transaction (or account
// state). utime 0 means it holds none.
type HeadSource func(ctx context.Context) (utime uint32, lt uint64, err error)

// ltAlign is the chain's alignment of a block's starting logical time: the
// newest transaction's lt rounded down to it is where its block started.
const ltAlign = 1_000_000

// FixedClock is a clock stopped at one moment (tests replaying a block).
func FixedClock(at ChainTime) func(context.Context) (ChainTime, error) {
	return func(context.Context) (ChainTime, error) { return at, nil }
}

// HeadClock is Options.Clock for a server that serves an imported snapshot:
// estimates run at the time of the newest block or state it holds, where
// the snapshot's signed messages are still valid and storage fees are
// what the chain charged then, and in that block's logical time (contracts
// that make query ids of it see the block's). The head is read at most
// once per maxAge (a snapshot's head moves only when more is imported).
type HeadClock struct {
	src    HeadSource
	maxAge time.Duration

	mu   sync.Mutex
	at   ChainTime
	read time.Time // wall clock of the last read
}

func NewHeadClock(src HeadSource, maxAge time.Duration) *HeadClock {
	return &HeadClock{src: src, maxAge: maxAge}
}

// Now returns the head.
func (c *HeadClock) Now(ctx context.Context) (ChainTime, error) {
	c.mu.Lock()
	if c.at.Unix != 0 && time.Since(c.read) < c.maxAge {
		at := c.at
		c.mu.Unlock()
		return at, nil
	}
	c.mu.Unlock()
	utime, lt, err := c.src(ctx)
	if err != nil {
		return ChainTime{}, unavailable(err, "the database's newest block")
	}
	at := ChainTime{Unix: utime, Lt: lt - lt%ltAlign}
	if at.Unix == 0 {
		return ChainTime{}, apperr.Wrap(apperr.Unavailable, errors.New("no head"),
			"FEE_CLOCK=head, but the database holds no blocks or account states yet; import some or use FEE_CLOCK=wall")
	}
	c.mu.Lock()
	c.at, c.read = at, time.Now()
	c.mu.Unlock()
	return at, nil
}
