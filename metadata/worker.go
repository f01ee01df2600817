package metadata

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/backoff"
)

// Store is what the worker needs of the store (store.Store has it).
type Store interface {
	// ClaimTokenJobs takes up to limit due tokens and leases them.
	ClaimTokenJobs(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]chain.TokenJob, error)
	// SaveTokenMetadata stores a token's metadata unless its content changed meanwhile.
	SaveTokenMetadata(ctx context.Context, md chain.TokenMetadata) (bool, error)
	// RecordTokenFailure notes a failed refresh, keeping the stored metadata.
	RecordTokenFailure(ctx context.Context, address string, hash chain.Hash, attempts int, reason string,
		next *time.Time, now time.Time) (bool, error)
	// ReleaseTokenJobs makes claimed tokens due again.
	ReleaseTokenJobs(ctx context.Context, addresses []string, now time.Time) error
	// RefreshTokenMetadata makes tokens due now.
	RefreshTokenMetadata(ctx context.Context, addresses []string, now time.Time) (int, error)
}

// WorkerOptions configure a Worker. Zero values take the defaults.
type WorkerOptions struct {
	// Workers bounds the off-chain fetches running at once (METADATA_WORKERS).
	Workers int
	// PerHost bounds the fetches running at once to one host.
	PerHost int
	// Poll is how often the store is asked for due tokens when nothing
	// woke the worker (Wake, Refresh).
	Poll time.Duration
	// Lease is how long a claimed token stays the worker's.
	Lease time.Duration
	// MaxAttempts failed attempts in a row are retried with Backoff;
	// after them, the token is tried again every Recheck.
	MaxAttempts int
	Backoff     backoff.Policy
	Recheck     time.Duration
	// Refresh is when off-chain metadata fetched fine is fetched again
	// (its owner may change the JSON without changing the contract).
	Refresh time.Duration
	// Now is the clock (tests); default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Defaults of WorkerOptions. The backoff and re-check follow the peers'
// practice (toncenter retries 5 times from 5 s doubling up to 5 min, and
// re-reads metadata weekly) with longer waits: a host that failed five
// times is asked again daily, not hourly.
const (
	DefaultWorkers     = 4
	DefaultPerHost     = 2
	DefaultPoll        = 2 * time.Second
	DefaultLease       = 10 * time.Minute
	DefaultMaxAttempts = 5
	DefaultRecheck     = 24 * time.Hour
	DefaultRefresh     = 7 * 24 * time.Hour
)

// DefaultBackoff is the wait after the n-th failed attempt: 30 s doubling
// up to 1 h, jittered.
func DefaultBackoff() backoff.Policy { return backoff.Policy{Base: 30 * time.Second, Max: time.Hour} }

// Worker makes token metadata in the background: it claims due tokens
// from the store, parses their content, fetches off-chain JSON, merges and
// stores the result. Requests never wait for it: they read what it
// stored.
type Worker struct {
	st    Store
	fetch *Fetcher
	opt   WorkerOptions
	log   *slog.Logger
	hosts hostGate
	slots chan struct{} // fetches running
	wake  chan struct{}
}

// NewWorker makes a worker over st that fetches with f.
func NewWorker(st Store, f *Fetcher, opt WorkerOptions) *Worker {
	if opt.Workers <= 0 {
		opt.Workers = DefaultWorkers
	}
	if opt.PerHost <= 0 {
		opt.PerHost = DefaultPerHost
	}
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Lease <= 0 {
		opt.Lease = DefaultLease
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = DefaultMaxAttempts
	}
	if opt.Backoff.Base <= 0 {
		opt.Backoff = DefaultBackoff()
	}
	if opt.Recheck <= 0 {
		opt.Recheck = DefaultRecheck
	}
	if opt.Refresh <= 0 {
		opt.Refresh = DefaultRefresh
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Worker{st: st, fetch: f, opt: opt, log: opt.Logger.With("component", "metadata"),
		hosts: hostGate{per: opt.PerHost, m: map[string]*hostSlot{}},
		slots: make(chan struct{}, opt.Workers), wake: make(chan struct{}, 1)}
}

// Wake makes the worker look for due tokens now (after an enqueue).
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Refresh makes tokens due now and wakes the worker; it reports how many
// of the addresses (raw upper-case) are tokens the store holds.
func (w *Worker) Refresh(ctx context.Context, addresses ...string) (int, error) {
	n, err := w.st.RefreshTokenMetadata(ctx, addresses, w.opt.Now())
	if err == nil && n > 0 {
		w.Wake()
	}
	return n, err
}

// Run works until ctx ends, then waits for the jobs in hand to stop and
// hands back to the store those not finished. Jobs in hand are bounded
// (4 per worker) so that jobs waiting for a busy host never pile up.
func (w *Worker) Run(ctx context.Context) error {
	limit := 4 * w.opt.Workers
	var (
		mu       sync.Mutex
		inHand   = map[string]bool{}
		unfinish []string
		wg       sync.WaitGroup
	)
	finished := make(chan struct{}, 1)
	poll := time.NewTicker(w.opt.Poll)
	defer poll.Stop()
	failures := 0
	for {
		mu.Lock()
		free := limit - len(inHand)
		mu.Unlock()
		claimed := 0
		if free > 0 && ctx.Err() == nil {
			jobs, err := w.st.ClaimTokenJobs(ctx, w.opt.Now(), w.opt.Lease, free)
			switch {
			case err != nil && ctx.Err() == nil:
				failures++
				w.log.Warn("claiming token metadata jobs failed", "error", err.Error())
				_ = backoff.Sleep(ctx, backoff.Network().Delay(failures, nil))
			case err == nil:
				failures = 0
			}
			claimed = len(jobs)
			for _, j := range jobs {
				mu.Lock()
				inHand[j.Address] = true
				mu.Unlock()
				wg.Add(1)
				go func() {
					defer wg.Done()
					done := w.process(ctx, j)
					mu.Lock()
					delete(inHand, j.Address)
					if !done {
						unfinish = append(unfinish, j.Address)
					}
					mu.Unlock()
					select { // a wake-up, not a count: one pending is enough
					case finished <- struct{}{}:
					default:
					}
				}()
			}
		}
		if ctx.Err() != nil {
			break
		}
		if claimed > 0 && claimed == free {
			continue // more may be due: claim again as soon as room frees
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-poll.C:
		case <-finished:
		}
	}
	wg.Wait()
	if len(unfinish) > 0 {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := w.st.ReleaseTokenJobs(rctx, unfinish, w.opt.Now()); err != nil {
			w.log.Warn("handing back unfinished token metadata jobs failed; they are due when their lease ends",
				"error", err.Error(), "jobs", len(unfinish))
		}
	}
	return nil
}

// process makes one token's metadata and stores it; false when ctx ended
// first (nothing stored: the job goes back).
func (w *Worker) process(ctx context.Context, j chain.TokenJob) bool {
	if ctx.Err() != nil {
		return false
	}
	now := w.opt.Now()
	md := chain.TokenMetadata{Address: j.Address, Kind: j.Kind, ContentHash: j.ContentHash, FetchedAt: &now, UpdatedAt: now}
	c, err := Parse(j.Content)
	if err != nil {
		// The content decides this alone: nothing to retry until it changes.
		md.Reason = ReasonBadContent
		w.log.Debug("token content does not parse", "address", j.Address, "error", err.Error())
		return w.save(ctx, md)
	}
	if c.URI == "" {
		Merge(&md, c, nil, "")
		return w.save(ctx, md)
	}
	u, err := w.fetch.Resolve(c.URI)
	if err != nil {
		Merge(&md, c, nil, FetchReason(err))
		md.LastError = md.Reason
		return w.save(ctx, md)
	}
	release, err := w.hosts.acquire(ctx, u.Host)
	if err != nil {
		return false
	}
	select {
	case w.slots <- struct{}{}:
	case <-ctx.Done():
		release()
		return false
	}
	doc, err := w.fetch.FetchURL(ctx, u)
	<-w.slots
	release()
	if ctx.Err() != nil {
		return false
	}
	now = w.opt.Now()
	md.FetchedAt, md.UpdatedAt = &now, now
	if err == nil {
		Merge(&md, c, doc, "")
		next := now.Add(w.opt.Refresh)
		md.NextAttemptAt = &next
		return w.save(ctx, md)
	}
	reason := FetchReason(err)
	w.log.Debug("off-chain metadata fetch failed", "address", j.Address, "url", u.Redacted(), "reason", reason, "error", err.Error())
	attempts := j.Attempts + 1
	next := now.Add(w.opt.Recheck)
	if attempts < w.opt.MaxAttempts {
		next = now.Add(w.opt.Backoff.Delay(attempts, nil))
	}
	if j.Valid {
		// A refresh failed: what was fetched before stays, valid.
		if _, err := w.st.RecordTokenFailure(ctx, j.Address, j.ContentHash, attempts, reason, &next, now); err != nil {
			w.log.Warn("storing a metadata failure failed", "address", j.Address, "error", err.Error())
		}
		return true
	}
	Merge(&md, c, nil, reason)
	md.Attempts, md.LastError, md.NextAttemptAt = attempts, reason, &next
	return w.save(ctx, md)
}

func (w *Worker) save(ctx context.Context, md chain.TokenMetadata) bool {
	if _, err := w.st.SaveTokenMetadata(ctx, md); err != nil {
		if ctx.Err() != nil {
			return false
		}
		// The lease runs out and the token is tried again.
		w.log.Warn("storing token metadata failed", "address", md.Address, "error", err.Error())
	}
	return true
}

// hostGate bounds the fetches running at once to each host: many tokens
// of one collection share a host, and are fetched a few at a time while
// other hosts' fetches proceed.
type hostGate struct {
	per int
	mu  sync.Mutex
	m   map[string]*hostSlot
}

type hostSlot struct {
	ch    chan struct{}
	users int // holders and waiters; the slot is dropped at 0
}

func (g *hostGate) acquire(ctx context.Context, host string) (func(), error) {
	g.mu.Lock()
	s := g.m[host]
	if s == nil {
		s = &hostSlot{ch: make(chan struct{}, g.per)}
		g.m[host] = s
	}
	s.users++
	g.mu.Unlock()
	select {
	case s.ch <- struct{}{}:
		return func() { <-s.ch; g.leave(host, s) }, nil
	case <-ctx.Done():
		g.leave(host, s)
		return nil, ctx.Err()
	}
}

func (g *hostGate) leave(host string, s *hostSlot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.users--; s.users == 0 {
		delete(g.m, host)
	}
}
