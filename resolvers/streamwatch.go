package resolvers

import (
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/store"
)

// Event types and finality levels of streams, named as toncenter's
// streaming v2 names them.
const (
	EventActions      = notify.TypeActions
	EventTransactions = notify.TypeTransactions
	EventAccountState = notify.TypeAccountState
	EventTrace        = notify.TypeTrace
	EventJettons      = notify.TypeJettons
	// FinalityFinalized is the finality of every event streamed: an action
	// is told once its masterchain block is stored.
	FinalityFinalized = "finalized"
	// FinalityPending is the finality of the emulated actions of a message
	// sent through this server, told before its trace is stored.
	FinalityPending = "pending"
	// FinalityInvalidated marks, on GraphQL, a pending action whose trace
	// was not stored in time (toncenter sends trace_invalidated instead).
	FinalityInvalidated = "invalidated"
)

// eventTypes are toncenter's streaming v2 event types, every one of which
// this server streams.
var eventTypes = map[string]bool{
	EventActions: true, EventTransactions: true, EventTrace: true, EventAccountState: true, EventJettons: true,
}

var finalities = []string{FinalityPending, "confirmed", FinalityFinalized}

// applyWatch checks a stream's watch set, event types and finality and
// puts the set in f. A set larger than one stream may watch is refused
// here (422); the key's total is the hub's (429).
func (r *Resolver) applyWatch(w *model.StreamWatch, f *store.ActionFilter) error {
	if w == nil {
		return nil
	}
	if err := checkEventTypes(w.Types); err != nil {
		return err
	}
	if err := checkFinality(w.MinFinality); err != nil {
		return err
	}
	if n := len(w.Addresses) + len(w.TraceExternalHashNorms); n > 0 {
		if err := r.Notify.CheckWatch("addresses", n); err != nil {
			return err
		}
	}
	seen := make(map[string]bool, len(w.Addresses))
	for _, a := range w.Addresses {
		raw, err := chain.NormalizeAddress(a)
		if err != nil {
			return apperr.Field("addresses", "%q: %v", apperr.Excerpt(a), err)
		}
		if !seen[raw] {
			seen[raw] = true
			f.WatchAccounts = append(f.WatchAccounts, raw)
		}
	}
	for _, s := range w.TraceExternalHashNorms {
		h, err := chain.ParseHash(s)
		if err != nil {
			return apperr.Field("trace_external_hash_norms", "%q: %v", apperr.Excerpt(s), err)
		}
		f.WatchExtNorms = append(f.WatchExtNorms, h.Base64())
	}
	return nil
}

// checkEventTypes refuses names that are not event types rather than
// leave a client waiting for events that never come.
func checkEventTypes(types []string) error {
	for _, t := range types {
		if !eventTypes[t] {
			return apperr.Field("types", "unknown event type %q; the types are actions, transactions, trace, account_state_change, jettons_change", apperr.Excerpt(t))
		}
	}
	return nil
}

func checkFinality(name *string) error {
	if name == nil {
		return nil
	}
	for _, f := range finalities {
		if *name == f {
			return nil
		}
	}
	return apperr.Field("min_finality", "unknown finality %q; one of %s", apperr.Excerpt(*name), strings.Join(finalities, ", "))
}
