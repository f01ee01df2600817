package fees

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/txemulator"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
)

// Options tune an Estimator; zero values pick the defaults.
type Options struct {
	// Now is the chain time estimates run at (storage fees accrue up to it).
	// Default time.Now; tests replaying a block use the block's time.
	Now func() time.Time
	// Clock, when set, is used instead of Now: a clock that must read
	// something (HeadClock reads the database's newest block), whose
	// failure fails the estimate, and that may also fix the logical time.
	// ClockName names it in answers.
	Clock     func(ctx context.Context) (ChainTime, error)
	ClockName string
	// Emulators bounds concurrent emulations (and emulators kept). Default GOMAXPROCS.
	Emulators int
	// MaxDepth bounds how many message hops of the trace are followed for
	// destination_fees. Default 8.
	MaxDepth int
	// MaxTransactions bounds the destination transactions emulated. Default 32.
	MaxTransactions int
	// AssumedBalance is the balance given to a nonexistent or uninitialized
	// account estimated as a deployment. Default 1000 TON.
	AssumedBalance uint64
	// CacheTTL is how long an answer is cached. Default 10s.
	CacheTTL time.Duration
	// TimeBucket is the time granularity of cache keys: storage fees move
	// with time, so answers from different buckets never mix. Default 10s.
	TimeBucket time.Duration
	// ConfigMaxAge is how long a config read from the source is reused
	// before it is read again (see configReader). Default 1s; negative
	// reads it for every estimate.
	ConfigMaxAge time.Duration
	// LocalCacheTTL is how long this process keeps its own copy of an
	// answer it got from (or gave to) a shared cache such as Redis, so that
	// a hot estimate costs no round trip. Entries are addressed by
	// everything that makes the answer, so a copy is exactly what Redis
	// holds. Default 1s; negative disables it. Unused with an in-process cache.
	LocalCacheTTL time.Duration
	Logger        *slog.Logger
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ClockName == "" {
		o.ClockName = ClockWall
	}
	if o.Emulators <= 0 {
		o.Emulators = runtime.GOMAXPROCS(0)
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 8
	}
	if o.MaxTransactions <= 0 {
		o.MaxTransactions = 32
	}
	if o.AssumedBalance == 0 {
		o.AssumedBalance = 1000 * 1_000_000_000
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = 10 * time.Second
	}
	if o.TimeBucket < time.Second {
		o.TimeBucket = 10 * time.Second
	}
	if o.LocalCacheTTL == 0 {
		o.LocalCacheTTL = time.Second
	}
	if o.ConfigMaxAge == 0 {
		o.ConfigMaxAge = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Result is the API's "query.fees" object. The transport adds "@extra".
type Result struct {
	Type            string `json:"@type"` // always "query.fees"
	SourceFees      Fees   `json:"source_fees"`
	DestinationFees []Fees `json:"destination_fees"`
	Extra           string `json:"@extra,omitempty"`

	// Not part of the toncenter shape; a transport may show them elsewhere.
	ConfigSource string `json:"-"` // ConfigFromSource or ConfigFromEmbedded
	Utime        uint32 `json:"-"` // chain time the estimate ran at
	Clock        string `json:"-"` // which clock gave Utime: ClockWall, ClockHead
	Cached       bool   `json:"-"`
}

// Estimator estimates fees by emulation. It is safe for concurrent use.
type Estimator struct {
	src     StateSource
	cache   cache.Cache   // nil: no caching
	local   *cache.Memory // copies of shared-cache entries; nil when cache is local or absent
	opts    Options
	pool    *pool
	configs configCache
	source  configReader
	reads   accountReads
	onEmu   atomic.Pointer[func(time.Duration)] // see OnEmulation
}

// New makes an Estimator reading chain state from source. c may be nil.
func New(source StateSource, c cache.Cache, opts Options) *Estimator {
	opts.defaults()
	e := &Estimator{src: source, cache: c, opts: opts, pool: newPool(opts.Emulators),
		source: configReader{maxAge: opts.ConfigMaxAge}}
	if _, inProcess := c.(*cache.Memory); c != nil && !inProcess && opts.LocalCacheTTL > 0 {
		e.local = cache.NewMemory(4096)
	}
	return e
}

// Limits are the bounds on a trace: hops from the root, and destination
// transactions.
func (e *Estimator) Limits() (maxDepth, maxTransactions int) {
	return e.opts.MaxDepth, e.opts.MaxTransactions
}

// Estimate runs the request's external message on the account's current
// state and follows the trace it starts.
func (e *Estimator) Estimate(ctx context.Context, r Request) (*Result, error) {
	em, err := e.emulation(ctx, r, false)
	if err != nil {
		return nil, err
	}
	return em.Result, nil
}

// Emulate is Estimate that also returns the trace it emulated: every
// transaction and every message not followed. Its Result is the estimate
// of the same request. Answers are cached like estimates, apart from them.
func (e *Estimator) Emulate(ctx context.Context, r Request) (*Emulation, error) {
	return e.emulation(ctx, r, true)
}

// emulation is Estimate and Emulate: the clock, the config and the
// account's state, then the cached answer or a run. An estimate caches
// only its Result (a fraction of the trace's size), so the two are kept
// under different keys.
func (e *Estimator) emulation(ctx context.Context, r Request, trace bool) (*Emulation, error) {
	at, cfg, err := e.when(ctx, r)
	if err != nil {
		return nil, err
	}
	if r.ValidUntil != 0 && r.ValidUntil <= at.Unix {
		return nil, apperr.Field("valid_until", "expired: %d is not after the chain time %d", r.ValidUntil, at.Unix)
	}
	st := r.State
	if st == nil {
		if st, err = e.accountOf(ctx, r.At, chain.RawAddress(r.Account)); err != nil {
			return nil, err
		}
	}
	if e.cache == nil || r.At != nil {
		em, _, err := e.run(ctx, r, cfg, st, at, trace)
		return em, err
	}
	kind := kindEstimate
	if trace {
		kind = kindEmulation
	}
	key := e.cacheKey(r, cfg, st, at, kind)
	if c := e.lookup(ctx, key); c != nil {
		switch {
		case trace && c.Emulation != nil:
			return c.Emulation, nil
		case !trace && c.Result != nil:
			return &Emulation{Result: c.Result}, nil
		}
	}
	em, deps, err := e.run(ctx, r, cfg, st, at, trace)
	if err != nil {
		return nil, err
	}
	c := &cached{Emulation: em}
	if !trace {
		c = &cached{Result: em.Result}
	}
	e.remember(ctx, key, c, deps)
	return em, nil
}

// now is the chain time an estimate runs at.
func (e *Estimator) now(ctx context.Context) (ChainTime, error) {
	if e.opts.Clock == nil {
		return ChainTime{Unix: uint32(e.opts.Now().Unix())}, nil
	}
	return e.opts.Clock(ctx)
}

func (e *Estimator) config(ctx context.Context) (*preparedConfig, error) {
	cfg, err := e.source.get(ctx, e.src)
	if err != nil {
		return nil, unavailable(err, "blockchain config")
	}
	p, err := e.configs.prepare(cfg)
	if err != nil {
		// A config we cannot trust is a broken dependency, not a client error.
		return nil, apperr.Wrap(apperr.Unavailable, err, "blockchain config is unusable")
	}
	return p, nil
}

// when is the chain time and config a request runs at: now's, or its
// past block's.
func (e *Estimator) when(ctx context.Context, r Request) (ChainTime, *preparedConfig, error) {
	if r.At == nil {
		at, err := e.now(ctx)
		if err != nil {
			return at, nil, err
		}
		cfg, err := e.config(ctx)
		return at, cfg, err
	}
	c, err := r.At.Source.Config(ctx)
	if err != nil {
		return r.At.Time, nil, unavailable(err, "blockchain config")
	}
	if c == nil {
		return r.At.Time, nil, apperr.New(apperr.NotFound, "no blockchain config is stored for that block")
	}
	cfg, err := e.configs.prepare(c)
	if err != nil {
		return r.At.Time, nil, apperr.Wrap(apperr.Unavailable, err, "blockchain config is unusable")
	}
	return r.At.Time, cfg, nil
}

// accountOf is the account's state now, or at the past block at names.
func (e *Estimator) accountOf(ctx context.Context, at *At, raw string) (*chain.AccountState, error) {
	if at == nil {
		return e.account(ctx, raw)
	}
	st, err := at.Source.Account(ctx, raw)
	if err != nil {
		return nil, unavailable(err, "account state")
	}
	return st, nil
}

func (e *Estimator) account(ctx context.Context, raw string) (*chain.AccountState, error) {
	st, err := e.reads.do(ctx, raw, func(ctx context.Context) (*chain.AccountState, error) {
		return e.src.Account(ctx, raw)
	})
	if err != nil {
		if isNotFound(err) {
			return nil, nil
		}
		return nil, unavailable(err, "account state")
	}
	return st, nil
}

func isNotFound(err error) bool {
	var ae *apperr.Error
	return errors.As(err, &ae) && ae.Kind == apperr.NotFound
}

// unavailable keeps an already classified error (timeouts stay timeouts) and
// calls anything else an unavailable dependency.
func unavailable(err error, what string) error {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return apperr.Wrap(apperr.Timeout, err, "request timed out")
	}
	return apperr.Wrap(apperr.Unavailable, err, what+" is unavailable")
}

// run emulates the message and its trace on one leased emulator; record
// keeps every transaction for a preview.
func (e *Estimator) run(ctx context.Context, r Request, cfg *preparedConfig, st *chain.AccountState, at ChainTime, record bool) (*Emulation, []dep, error) {
	b, err := buildMessage(r)
	if err != nil {
		return nil, nil, apperr.Field("body", "%v", err)
	}
	sa, err := e.rootAccount(r, b, st, at.Unix)
	if err != nil {
		return nil, nil, err
	}
	l, err := e.pool.acquire(ctx, cfg)
	if err != nil {
		return nil, nil, unavailable(err, "emulator")
	}
	defer l.release()
	var out *Emulation
	var deps []dep
	start := time.Now()
	// The request's work budget is charged the CPU time (a batch of
	// estimates shares one budget).
	cost.Work(ctx, func() { out, deps, err = e.emulateOn(ctx, l, r, b, sa, cfg, at, record) })
	if f := e.onEmu.Load(); f != nil {
		(*f)(time.Since(start))
	}
	return out, deps, err
}

// emulateOn runs the message and its trace on a leased emulator.
func (e *Estimator) emulateOn(ctx context.Context, l *lease, r Request, b *built, sa tlb.ShardAccount, cfg *preparedConfig,
	at ChainTime, record bool) (*Emulation, []dep, error) {
	if err := setup(l.e, at, r.IgnoreChksig, r.Body); err != nil {
		return nil, nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	em, err := emulate(l.e, sa, b.msg)
	if err != nil {
		return nil, nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	if !em.Success {
		return nil, nil, rejected(em)
	}
	src, err := txFees(&em.Emulation.Transaction)
	if err != nil {
		return nil, nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	out := &Emulation{}
	t := &tracer{e: e, em: l.e, at: r.At, states: map[ton.AccountID]tlb.ShardAccount{r.Account: em.Emulation.ShardAccount}}
	if record {
		t.rec = out
		t.record(-1, 0, r.Account, em.Emulation, src, sa)
	}
	dest, err := t.follow(ctx, &em.Emulation.Transaction)
	if err != nil {
		return nil, nil, err
	}
	t.keepStates()
	out.Result = &Result{Type: "query.fees", SourceFees: src, DestinationFees: dest,
		ConfigSource: cfg.origin, Utime: at.Unix, Clock: e.opts.ClockName}
	out.Stops = t.stops
	return out, t.deps, nil
}

// rootAccount is the state the external message runs on. A nonexistent or
// uninitialized account with init_code is estimated as a deployment: an
// external message brings no coins, so the account is given AssumedBalance
// (the fees do not depend on the balance, only whether it suffices).
func (e *Estimator) rootAccount(r Request, b *built, st *chain.AccountState, utime uint32) (tlb.ShardAccount, error) {
	var sa tlb.ShardAccount
	if st != nil && len(st.ShardAccountBOC) > 0 {
		var err error
		if sa, err = decodeShardAccount(st.ShardAccountBOC); err != nil {
			return sa, apperr.Wrap(apperr.Internal, err, "internal error")
		}
	} else {
		if b.init == nil {
			// No state: not "not initialized", which the chain may deny.
			return sa, NoState(chain.RawAddress(r.Account), "to estimate its deployment, give init_code and init_data")
		}
		sa.Account.SumType = "AccountNone"
	}
	exists := sa.Account.SumType == "Account"
	switch {
	case exists && sa.Account.Account.Storage.State.SumType == "AccountFrozen":
		// the chain would need a StateInit matching the frozen hash and coins
		// to unfreeze; an external message brings neither
		return sa, apperr.New(apperr.NotAccepted, "account %s is frozen", chain.RawAddress(r.Account))
	case exists && sa.Account.Account.Storage.State.SumType != "AccountUninit":
		// active: the contract decides, but the chain drops a message whose
		// StateInit is not the account's before any code runs
		if b.init != nil {
			return sa, e.checkInit(r, b)
		}
		return sa, nil
	}
	if b.init == nil {
		return sa, apperr.New(apperr.NotAccepted,
			"account %s is not initialized; give init_code and init_data to estimate its deployment",
			chain.RawAddress(r.Account))
	}
	if err := e.checkInit(r, b); err != nil {
		return sa, err
	}
	if !exists {
		sa = tlb.ShardAccount{Account: tlb.Account{SumType: "Account"}}
		acc := &sa.Account.Account
		acc.Addr = r.Account.ToMsgAddress()
		acc.StorageStat.StorageExtra.SumType = "StorageExtraNone"
		acc.StorageStat.LastPaid = utime
		acc.Storage.State.SumType = "AccountUninit"
	}
	if bal := &sa.Account.Account.Storage.Balance.Grams; uint64(*bal) < e.opts.AssumedBalance {
		*bal = tlb.Grams(e.opts.AssumedBalance)
	}
	return sa, nil
}

// checkInit requires the message's StateInit to hash to the address.
func (e *Estimator) checkInit(r Request, b *built) error {
	addr, err := stateInitAddress(*b.init, r.Account.Workchain)
	if err != nil || addr != r.Account {
		return apperr.Field("init_code", "init_code and init_data do not hash to address %s", chain.RawAddress(r.Account))
	}
	return nil
}

// setup prepares a leased emulator for one estimate. The random seed is
// derived from the body so that contracts using RANDU256 get the same gas
// every time for the same request.
func setup(em *txemulator.Emulator, at ChainTime, ignoreChksig bool, body []byte) error {
	if err := em.SetUnixtime(at.Unix); err != nil {
		return err
	}
	// 0 restores the emulator's default (the block after the account's
	// last transaction); the setting outlives the lease otherwise
	if err := em.SetLT(at.Lt); err != nil {
		return err
	}
	if err := em.SetIgnoreSignatureCheck(ignoreChksig); err != nil {
		return err
	}
	return em.SetRandomSeed(seedOf(body))
}

// emulate calls the emulator with a recover: tongo marshals our structures
// and parses the C++ answer, and neither may take the process down.
func emulate(em *txemulator.Emulator, sa tlb.ShardAccount, m tlb.Message) (res txemulator.EmulationResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("emulator panicked: %v", r)
		}
	}()
	res, err = em.Emulate(sa, m)
	if err == nil && res.Success && res.Emulation == nil {
		err = errors.New("emulator reported success without a transaction")
	}
	return res, err
}

func rejected(em txemulator.EmulationResult) error {
	code := 0
	if em.Error != nil {
		code = em.Error.ExitCode
		if code == 0 && strings.Contains(em.Error.Text, "before smart-contract execution") {
			// no code ran, so there is no exit code to explain
			return apperr.New(apperr.NotAccepted, "message rejected by the account before its code ran")
		}
	}
	return apperr.New(apperr.NotAccepted, "%s", notAcceptedMessage(code))
}
