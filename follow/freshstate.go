package follow

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/ratelog"
	"github.com/tonql/tonql/lite"
	"github.com/tonql/tonql/store"
)

// FreshState is the fees.StateSource of a server with lite servers: the
// stored state when it is fresh, else the account read from a lite server
// now (and stored for the next estimate). A stored state is stale when it
// is older than MaxAge or when the follower has seen a transaction of the
// account after it. With lite servers unreachable it answers from the store
// (degraded, logged once a minute) rather than fail.
type FreshState struct {
	store  *store.Store
	lite   *lite.Client
	maxAge time.Duration
	now    func() time.Time
	log    *slog.Logger
	warn   *ratelog.Limiter
}

func NewFreshState(st *store.Store, lc *lite.Client, maxAge time.Duration, log *slog.Logger) *FreshState {
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "fresh-state")
	return &FreshState{store: st, lite: lc, maxAge: maxAge, now: time.Now, log: log, warn: ratelog.New(log, time.Minute)}
}

func (f *FreshState) Account(ctx context.Context, rawAddr string) (*chain.AccountState, error) {
	stored, storeErr := f.store.Account(ctx, rawAddr)
	if storeErr == nil && f.fresh(stored) {
		return stored, nil
	}
	id, err := ton.ParseAccountID(rawAddr)
	if err != nil {
		return nil, apperr.Field("address", "not an account address")
	}
	raw, err := f.lite.Account(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			return nil, apperr.Wrap(apperr.Timeout, err, "account state timed out")
		}
		if storeErr == nil && stored != nil && len(stored.ShardAccountBOC) > 0 {
			f.warn.Warn("lite servers unavailable; estimating on stored (older) account states", err)
			return stored, nil
		}
		if storeErr != nil {
			return nil, storeErr
		}
		return nil, apperr.Wrap(apperr.Unavailable, err, "account state unavailable")
	}
	st, err := ingest.AccountFromShardAccount(rawAddr, raw, uint32(f.now().Unix()))
	if err != nil {
		return nil, apperr.Wrap(apperr.Unavailable, err, "account state unavailable")
	}
	// A state saying the account does not exist is kept as one: estimates
	// tell it from an account nobody knows (which stops a preview's trace).
	// Stored so the next estimate (and other API servers) skip the fetch;
	// SaveBatch never moves an account back in time.
	if err := f.store.SaveBatch(ctx, &store.Batch{Accounts: []chain.AccountState{st}}); err != nil {
		f.warn.Warn("storing a fetched account state failed", err)
	}
	return &st, nil
}

// fresh: a full state, read recently, and not behind the last transaction
// the follower recorded for the account.
func (f *FreshState) fresh(st *chain.AccountState) bool {
	if st == nil || len(st.ShardAccountBOC) == 0 {
		return false
	}
	if f.now().Sub(time.Unix(int64(st.ReadAtUtime), 0)) > f.maxAge {
		return false
	}
	decoded, err := ingest.AccountFromShardAccount(st.Address, st.ShardAccountBOC, st.ReadAtUtime)
	return err == nil && decoded.LastTxLt >= st.LastTxLt
}

// Config is the newest stored config (the follower stores it at start and
// at every key block); with none stored it is read from a lite server and
// stored. nil (tongo's embedded config) when neither has one.
func (f *FreshState) Config(ctx context.Context) (*chain.ChainConfig, error) {
	cfg, err := f.store.Config(ctx)
	if err != nil || cfg != nil {
		return cfg, err
	}
	raw, seqno, err := f.lite.Config(ctx)
	if err != nil {
		if !errors.Is(err, lite.ErrUnavailable) {
			f.warn.Warn("reading the blockchain config from lite servers failed", err)
		}
		return nil, nil
	}
	cfg = &chain.ChainConfig{McSeqno: seqno, Utime: uint32(f.now().Unix()), ConfigBOC: raw}
	if err := f.store.SaveBatch(ctx, &store.Batch{Config: cfg}); err != nil {
		f.warn.Warn("storing the blockchain config failed", err)
	}
	return cfg, nil
}
