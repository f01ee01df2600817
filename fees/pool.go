package fees

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/txemulator"
)

// pool hands out emulators, one per in-flight estimate: an emulator used by
// two goroutines at once gives wrong answers, and -race cannot see it (the
// race is in C++). Emulators are made for one config (creating one parses
// the config, about 4 ms) and kept idle for reuse; when the config changes
// the idle ones are dropped and those in use are dropped on return.
type pool struct {
	sem     chan struct{} // one token per emulator in use
	waiting atomic.Int64  // estimates queued for a token

	mu      sync.Mutex
	key     [32]byte // config the idle emulators were made for
	idle    []*txemulator.Emulator
	maxIdle int

	quiet sync.Once // SetVerbosityLevel is process-wide: once is enough
}

func newPool(size int) *pool {
	return &pool{sem: make(chan struct{}, size), maxIdle: size}
}

// lease is one emulator owned by one estimate until release.
type lease struct {
	e   *txemulator.Emulator
	key [32]byte
	p   *pool
}

func (p *pool) acquire(ctx context.Context, cfg *preparedConfig) (*lease, error) {
	select {
	case p.sem <- struct{}{}:
	default:
		p.waiting.Add(1)
		select {
		case p.sem <- struct{}{}:
			p.waiting.Add(-1)
		case <-ctx.Done():
			p.waiting.Add(-1)
			return nil, ctx.Err()
		}
	}
	p.mu.Lock()
	if p.key != cfg.key {
		// a new config: emulators of the old one must never serve again
		p.key, p.idle = cfg.key, nil
	}
	var e *txemulator.Emulator
	if n := len(p.idle); n > 0 {
		e, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	if e == nil {
		var err error
		if e, err = p.create(cfg); err != nil {
			<-p.sem
			return nil, err
		}
	}
	return &lease{e: e, key: cfg.key, p: p}, nil
}

func (l *lease) release() {
	p := l.p
	p.mu.Lock()
	if p.key == l.key && len(p.idle) < p.maxIdle {
		p.idle = append(p.idle, l.e)
	}
	// A dropped emulator is freed by tongo's finalizer.
	p.mu.Unlock()
	l.e = nil
	<-p.sem
}

// PoolStats is a snapshot of the emulator pool, for monitoring.
type PoolStats struct {
	Size    int // emulators that may run at once (Options.Emulators)
	Busy    int // leased to an estimate now
	Idle    int // made and kept for reuse
	Waiting int // estimates queued for an emulator
}

func (p *pool) stats() PoolStats {
	p.mu.Lock()
	idle := len(p.idle)
	p.mu.Unlock()
	return PoolStats{Size: cap(p.sem), Busy: len(p.sem), Idle: idle, Waiting: int(p.waiting.Load())}
}

// create makes an emulator from fresh cells: the config bytes are decoded
// per emulator so that no cell is shared between goroutines.
func (p *pool) create(cfg *preparedConfig) (e *txemulator.Emulator, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("emulator creation panicked: %v", r)
		}
	}()
	// Before the first creation: parsing the config logs a page otherwise.
	// The setting is global in the library; the receiver is not used.
	p.quiet.Do(func() { _ = new(txemulator.Emulator).SetVerbosityLevel(0) })
	cells, err := boc.DeserializeBoc(cfg.config)
	if err != nil || len(cells) != 1 {
		return nil, errors.New("config BOC")
	}
	e, err = txemulator.NewEmulator(cells[0], txemulator.LogTruncated)
	if err != nil {
		return nil, err
	}
	if cfg.libs != nil {
		lc, err := boc.DeserializeBoc(cfg.libs)
		if err != nil || len(lc) != 1 {
			return nil, errors.New("libraries BOC")
		}
		if err := e.SetLibs(lc[0]); err != nil {
			return nil, err
		}
	}
	return e, nil
}
