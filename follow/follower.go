package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/backoff"
	"github.com/tonql/tonql/internal/ratelog"
	"github.com/tonql/tonql/store"
)

// DefaultName is the cursor of the masterchain follower.
const DefaultName = "masterchain"

// Options tune a Follower; the zero value follows from the source's head,
// forever, with network backoff.
type Options struct {
	Name string // cursor name; "" = DefaultName
	// From is the first masterchain block on a first run (no cursor yet);
	// 0 starts at the source's head. A stored cursor always wins, so a
	// restart never leaves a gap.
	From uint32
	// MaxRetries > 0 gives up after that many failed attempts in a row.
	MaxRetries int
	Backoff    backoff.Policy // between failed attempts; zero = backoff.Network()
	Poll       time.Duration  // wait at the head; 0 = 1s
	Logger     *slog.Logger   // nil = slog.Default()
	// Tokens, when set, updates the token registry after each stored
	// block, as an import does (ingest.Importer.Tokens).
	Tokens ingest.TokenHook
}

// Follower imports masterchain blocks from a source into the store, one
// database transaction per masterchain block, cursor included.
type Follower struct {
	store *store.Store
	src   BlockSource
	opt   Options
	log   *slog.Logger
	warn  *ratelog.Limiter

	mu    sync.Mutex
	stats Stats
}

// Stats is what /metrics and logs show about the follower.
type Stats struct {
	Running             bool
	Cursor              uint32    // last masterchain block stored
	CursorUtime         uint32    // its generation time
	Head                uint32    // newest masterchain block the source reported
	Blocks              uint64    // masterchain steps imported by this process
	RawBlocks           uint64    // master + shard blocks behind them
	Transactions        uint64    // transactions written (a trace completed later is rewritten whole)
	Actions             uint64    // actions written
	Failures            uint64    // failed attempts, total
	ConsecutiveFailures int       // failed attempts since the last success
	LastError           string    // "" after a success
	LastSuccess         time.Time // wall clock of the last stored block
}

// LagBlocks is how many masterchain blocks the store is behind the head.
func (s Stats) LagBlocks() uint32 {
	if s.Head <= s.Cursor {
		return 0
	}
	return s.Head - s.Cursor
}

// Lag is how old the newest stored block is, by chain time.
func (s Stats) Lag(now time.Time) time.Duration {
	if s.CursorUtime == 0 {
		return 0
	}
	return now.Sub(time.Unix(int64(s.CursorUtime), 0))
}

func New(st *store.Store, src BlockSource, opt Options) *Follower {
	if opt.Name == "" {
		opt.Name = DefaultName
	}
	if opt.Backoff == (backoff.Policy{}) {
		opt.Backoff = backoff.Network()
	}
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("follower", opt.Name)
	return &Follower{store: st, src: src, opt: opt, log: log, warn: ratelog.New(log, time.Minute)}
}

// Stats returns a snapshot; safe to call from any goroutine.
func (f *Follower) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

func (f *Follower) update(fn func(s *Stats)) {
	f.mu.Lock()
	fn(&f.stats)
	f.mu.Unlock()
}

// Run follows until ctx ends (nil), a finite source is exhausted (nil), or
// MaxRetries attempts in a row failed (an error saying why).
func (f *Follower) Run(ctx context.Context) error {
	f.update(func(s *Stats) { s.Running = true })
	defer f.update(func(s *Stats) { s.Running = false })
	r := &run{Follower: f}
	for {
		err := r.step(ctx)
		switch {
		case err == nil:
			if r.failures > 0 {
				f.log.Info("follower recovered", "after_failures", r.failures)
				f.warn.Forget()
			}
			r.failures = 0
			f.update(func(s *Stats) { s.ConsecutiveFailures, s.LastError = 0, "" })
			continue
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, io.EOF):
			f.log.Info("source exhausted", "cursor", f.Stats().Cursor)
			return nil
		case errors.Is(err, ErrNotYet):
			if err := backoff.Sleep(ctx, f.opt.Poll); err != nil {
				return nil
			}
			continue
		case errors.Is(err, store.ErrCursorMoved):
			return fmt.Errorf("%w: is a second follower writing to this database?", err)
		}
		r.failures++
		f.update(func(s *Stats) {
			s.Failures++
			s.ConsecutiveFailures = r.failures
			s.LastError = err.Error()
		})
		if f.opt.MaxRetries > 0 && r.failures >= f.opt.MaxRetries {
			return fmt.Errorf("giving up after %d failed attempts: %w", r.failures, err)
		}
		wait := f.opt.Backoff.Delay(r.failures, nil)
		f.warn.Warn("follow step failed, retrying", err, "attempt", r.failures, "retry_in", wait.String())
		if err := backoff.Sleep(ctx, wait); err != nil {
			return nil
		}
	}
}

// run is the state of one Run: where it is and the importer whose trace
// assembler mirrors the store.
type run struct {
	*Follower
	started  bool
	cursor   *store.Cursor // nil: none stored yet
	next     uint32
	im       *ingest.Importer
	failures int
}

// start reads the cursor, picks the first block and seeds the importer
// with the store's incomplete traces (the resume after a crash).
func (r *run) start(ctx context.Context) error {
	cur, err := r.store.FollowCursor(ctx, r.opt.Name)
	if err != nil {
		return err
	}
	r.cursor = cur
	switch {
	case cur != nil:
		r.next = cur.Seqno + 1
		if r.opt.From != 0 && r.opt.From != r.next {
			r.log.Warn("stored cursor wins over --from", "cursor", cur.Seqno, "from", r.opt.From)
		}
		r.update(func(s *Stats) { s.Cursor, s.CursorUtime = cur.Seqno, cur.Utime })
	case r.opt.From != 0:
		r.next = r.opt.From
	default:
		head, err := r.src.Head(ctx)
		if err != nil {
			return fmt.Errorf("source head: %w", err)
		}
		r.next = max(head, 1)
		r.update(func(s *Stats) { s.Head = head })
	}
	r.im = ingest.New(r.store)
	r.im.Tokens = r.opt.Tokens
	pending, err := r.im.Resume(ctx)
	if err != nil {
		return fmt.Errorf("resume pending traces: %w", err)
	}
	r.log.Info("following", "from", r.next, "pending_transactions", pending)
	r.started = true
	return nil
}

// step imports one masterchain block, or reports why it could not. After a
// failed save the importer is rebuilt from the store: its assembler already
// absorbed the block that was rolled back.
func (r *run) step(ctx context.Context) error {
	if !r.started {
		if err := r.start(ctx); err != nil {
			return err
		}
	}
	if head := r.Stats().Head; head < r.next {
		if h, err := r.src.Head(ctx); err == nil {
			r.update(func(s *Stats) { s.Head = max(s.Head, h) })
		}
	}
	blk, err := r.src.Block(ctx, r.next)
	if err != nil {
		return err
	}
	if blk.Seqno != r.next {
		return fmt.Errorf("source returned masterchain block %d for %d", blk.Seqno, r.next)
	}
	b, st, err := r.im.Batch(ctx, blk.Data)
	if err != nil {
		r.started = false // the assembler holds the block: re-seed it
		return fmt.Errorf("masterchain block %d: %w", blk.Seqno, err)
	}
	to := store.Cursor{Seqno: blk.Seqno, Utime: blk.Utime}
	b.Extra = store.Steps(b.Extra,
		store.TouchAccounts(touchedAccounts(blk.Data.Transactions)),
		store.MoveCursor(r.opt.Name, r.cursor, to))
	if err := r.store.SaveBatch(ctx, b); err != nil {
		r.started = false // re-read the cursor and re-seed the assembler
		return fmt.Errorf("masterchain block %d: save: %w", blk.Seqno, err)
	}
	r.cursor = &to
	r.next = blk.Seqno + 1
	// The block is stored whatever becomes of the registry: a failure
	// leaves its rows behind (unknown balances, never wrong ones) until
	// an account's next transaction brings a newer state.
	if err := r.im.TokensAfter(ctx, blk.Data, b); err != nil {
		r.log.Warn("token registry not updated", "seqno", blk.Seqno, "err", err)
	}
	r.update(func(s *Stats) {
		s.Cursor, s.CursorUtime = to.Seqno, to.Utime
		s.Head = max(s.Head, to.Seqno)
		s.Blocks++
		s.RawBlocks += uint64(blk.Blocks)
		s.Transactions += uint64(st.Transactions)
		s.Actions += uint64(st.Actions)
		s.LastSuccess = time.Now()
	})
	stats := r.Stats()
	r.log.Info("block stored", "seqno", blk.Seqno, "blocks", blk.Blocks, "transactions", len(blk.Data.Transactions),
		"actions", st.Actions, "traces_complete", st.Complete, "lag_blocks", stats.LagBlocks(),
		"lag", stats.Lag(time.Now()).Round(time.Second).String())
	return nil
}
