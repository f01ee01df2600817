package resolvers

import (
	"context"
	"log/slog"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/notify"
)

// pendingEmulations bounds the emulations of sent messages for pending
// stream events running at once; a message sent while they are busy is
// not previewed (its stored trace still comes, finalized).
const pendingEmulations = 2

// pendingEmulationTimeout bounds one of them.
const pendingEmulationTimeout = 10 * time.Second

var pendingSlots = make(chan struct{}, pendingEmulations)

// announcePending emulates a message just sent and tells the streams that
// want pending events about its actions, after the sender has its answer.
// Nothing is emulated when no stream wants them or there is no estimator.
func (r *Resolver) announcePending(boc string, norm chain.Hash) {
	if r.Notify == nil || r.Fees == nil || !r.Notify.WantsPending() {
		return
	}
	select {
	case pendingSlots <- struct{}{}:
	default:
		slog.Warn("pending stream events skipped: emulations of sent messages are busy", "hash_norm", norm.Base64())
		return
	}
	go func() {
		defer func() { <-pendingSlots }()
		ctx, cancel := context.WithTimeout(context.Background(), pendingEmulationTimeout)
		defer cancel()
		est, err := r.Preview(ctx, fees.Params{Boc: boc})
		if err != nil {
			slog.Warn("pending stream events skipped: the sent message's emulation failed", "hash_norm", norm.Base64(), "err", err)
			return
		}
		r.Notify.Pending(notify.PendingTrace{ExtHashNorm: norm.Base64(), Actions: est.Preview.Actions,
			Book: est.AddressBook, Metadata: est.Metadata})
	}()
}
