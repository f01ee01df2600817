package resolvers

import (
	"context"
	"log/slog"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/pending"
	"github.com/tonql/tonql/store"
)

// pendingEmulations bounds the emulations of sent messages running at
// once; a message sent while they are busy is not previewed (its stored
// trace still comes, finalized, and /api/v3/traces answers it).
const pendingEmulations = 2

// pendingEmulationTimeout bounds one of them.
const pendingEmulationTimeout = 10 * time.Second

var pendingSlots = make(chan struct{}, pendingEmulations)

// announcePending emulates a message just sent, after the sender has its
// answer: the trace is kept in the store as pending (/api/v3/pendingTraces,
// until its real trace is stored or it expires) and the streams that want
// pending events are told its actions. Nothing is emulated without an
// estimator, or when there is neither a store nor a stream to tell.
func (r *Resolver) announcePending(boc string, hash, norm chain.Hash) {
	tell := r.Notify != nil && r.Notify.WantsPending()
	if r.Fees == nil || (r.Store == nil && !tell) {
		return
	}
	select {
	case pendingSlots <- struct{}{}:
	default:
		slog.Warn("pending trace skipped: emulations of sent messages are busy", "hash_norm", norm.Base64())
		return
	}
	go func() {
		defer func() { <-pendingSlots }()
		ctx, cancel := context.WithTimeout(context.Background(), pendingEmulationTimeout)
		defer cancel()
		est, err := r.Preview(ctx, fees.Params{Boc: boc})
		if err != nil {
			slog.Warn("pending trace skipped: the sent message's emulation failed", "hash_norm", norm.Base64(), "err", err)
			return
		}
		if r.Store != nil {
			var seqno uint32
			if mc, err := r.MasterchainInfo(ctx); err == nil {
				seqno = mc.Last.Seqno
			}
			now := r.now()
			p, err := pending.Make(est, hash, norm, seqno, now, now.Add(r.pendingTimeout()))
			if err == nil {
				err = r.Store.SavePending(ctx, p)
			}
			if err != nil {
				slog.Warn("pending trace not kept", "hash", hash.Base64(), "err", err)
			}
		}
		if tell {
			r.Notify.Pending(notify.PendingTrace{ExtHashNorm: norm.Base64(), Actions: est.Preview.Actions,
				Book: est.AddressBook, Metadata: est.Metadata})
		}
	}()
}

// pendingTimeout is how long a pending trace is kept without its real
// trace being stored.
func (r *Resolver) pendingTimeout() time.Duration {
	if r.PendingTimeout > 0 {
		return r.PendingTimeout
	}
	return notify.DefaultPendingTimeout
}

// PendingFilter selects pending traces (toncenter's pendingTraces,
// pendingActions and pendingTransactions parameters): of an account (or
// of any of Accounts), by the sent message's hash or normalized hash, or
// by trace id; at least one, and each given must hold.
// SupportedActionTypes keeps the actions of those types (supportedTypes).
type PendingFilter struct {
	Account              *string
	Accounts             []string
	ExtHashes            []string
	TraceIDs             []string
	SupportedActionTypes []string
}

// PendingTraces reads the pending traces f selects, oldest first.
func (r *Resolver) PendingTraces(ctx context.Context, f PendingFilter) ([]*pending.Trace, error) {
	accounts := f.Accounts
	if f.Account != nil {
		accounts = append(accounts, *f.Account)
	}
	if len(accounts) == 0 && len(f.ExtHashes) == 0 && len(f.TraceIDs) == 0 {
		return nil, apperr.Field("account", "account or ext_msg_hash should be specified")
	}
	types, err := supportedTypes(f.SupportedActionTypes)
	if err != nil {
		return nil, err
	}
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no store configured: this server keeps no pending traces")
	}
	list, err := r.Store.FindPending(ctx, store.PendingFilter{Accounts: accounts, ExtHashes: f.ExtHashes, TraceIDs: f.TraceIDs, Now: r.now()})
	if err != nil {
		return nil, err
	}
	out, err := pending.Read(list, types)
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "a pending trace does not decode")
	}
	return out, nil
}
