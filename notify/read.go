package notify

import (
	"cmp"
	"context"
	"slices"

	"github.com/tonql/tonql/store"
)

// reading is what one read of the store asks for: the actions matching
// filter, the transactions of txScope and the states after them, or
// several of these.
type reading struct {
	filter     store.ActionFilter
	actions    bool
	txs        bool
	states     bool     // the accounts' states after the transactions
	txAccounts []string // of txs and states; nil: every account's
	// jettons asks for the registry's jetton wallet states of wallets in
	// or owned by jettonAccounts (store.JettonChangesAfter; nil: every
	// one).
	jettons        bool
	jettonAccounts []string
	// traces asks for the complete traces of traceAccounts or
	// traceExtNorms (store.TracesAfter; both nil: every one).
	traces                       bool
	traceAccounts, traceExtNorms []string
	lts, msgs                    bool // the match facts the live filters test
}

// read returns the events after `after` of the kinds r asks for, in seq
// order, up to limit of each kind, whether more may wait, and upto: every
// event of those kinds at or below it is among those returned (or was at
// or below after). upto is the counter's committed value read first, or
// less when a page was full; a reader moves its position to upto, not to
// its last event, since the counter's last numbers may be of events it
// did not ask for (a trace nobody watches), which it would otherwise wait
// on forever. Each kind is
// read by its own statement, and each statement sees what was committed
// when it began: a commit between the two would be seen by the second
// only, and a commit's transactions and actions are numbered together, so
// the actions of a commit the actions' read missed would fall below the
// last transaction told and never be read again. So every kind read is cut
// at the counter's committed value read before them (every seq at or
// below it is visible to each). When one kind's page was
// full, the other kind's events past its last seq are left for the next
// read as well, so the merged order has no gap.
func read(ctx context.Context, o *Options, r reading, after uint64, limit int) (events []*Event, upto uint64, more bool, err error) {
	bound, err := o.Store.LastActionSeq(ctx)
	if err != nil {
		return nil, 0, false, err
	}
	if bound <= after {
		return nil, after, false, nil
	}
	txRows := r.txs || r.states
	var acts []store.SeqAction
	var txs []store.SeqTx
	var trs []store.SeqTrace
	var jts []store.SeqJettonChange
	if r.actions {
		if acts, err = o.Store.ActionsAfter(ctx, r.filter, after, limit); err != nil {
			return nil, 0, false, err
		}
		if len(acts) == limit {
			bound, more = min(bound, acts[len(acts)-1].Seq), true
		}
	}
	if txRows {
		// A derived event after `after` may be of a transaction at or
		// below it (its places follow the transaction's seq).
		from := after
		if r.states {
			from -= min(after, store.TxSlots-1)
		}
		if txs, err = o.Store.TransactionsAfter(ctx, r.txAccounts, from, limit); err != nil {
			return nil, 0, false, err
		}
		if len(txs) == limit {
			last := txs[len(txs)-1]
			top := last.Seq
			if last.Slots {
				top += store.TxSlots - 1 // its derived events come with it
			}
			bound, more = min(bound, top), true
		}
	}
	if r.traces {
		if trs, err = o.Store.TracesAfter(ctx, r.traceAccounts, r.traceExtNorms, after, limit); err != nil {
			return nil, 0, false, err
		}
		if len(trs) == limit {
			bound, more = min(bound, trs[len(trs)-1].Seq), true
		}
	}
	if r.jettons {
		if jts, err = o.Store.JettonChangesAfter(ctx, r.jettonAccounts, after, limit); err != nil {
			return nil, 0, false, err
		}
		if len(jts) == limit {
			bound, more = min(bound, jts[len(jts)-1].Seq), true
		}
	}
	// Rows past the bound (committed after it, or past the other kind's
	// full page) are left for the next read before any is prepared.
	cutA := func(a store.SeqAction) bool { return a.Seq > bound }
	cutT := func(t store.SeqTx) bool { return t.Seq > bound }
	if i := slices.IndexFunc(acts, cutA); i >= 0 {
		acts, more = acts[:i], true
	}
	if i := slices.IndexFunc(txs, cutT); i >= 0 {
		txs, more = txs[:i], true
	}
	if i := slices.IndexFunc(trs, func(t store.SeqTrace) bool { return t.Seq > bound }); i >= 0 {
		trs, more = trs[:i], true
	}
	if i := slices.IndexFunc(jts, func(j store.SeqJettonChange) bool { return j.Seq > bound }); i >= 0 {
		jts, more = jts[:i], true
	}
	if events, err = prepare(ctx, o.Store, o.Book, acts, r.lts, r.msgs); err != nil {
		return nil, 0, false, err
	}
	if r.txs && len(txs) > 0 {
		own := slices.DeleteFunc(slices.Clone(txs), func(t store.SeqTx) bool { return t.Seq <= after })
		txEvents, err := prepareTxs(ctx, o.Book, own)
		if err != nil {
			return nil, 0, false, err
		}
		events = append(events, txEvents...)
	}
	if r.states && len(txs) > 0 {
		stEvents, err := prepareStates(ctx, o, txs, after)
		if err != nil {
			return nil, 0, false, err
		}
		events = append(events, stEvents...)
	}
	jtEvents, err := prepareJettons(ctx, o, jts)
	if err != nil {
		return nil, 0, false, err
	}
	events = append(events, jtEvents...)
	trEvents, err := prepareTraces(ctx, o, trs)
	if err != nil {
		return nil, 0, false, err
	}
	events = append(events, trEvents...)
	slices.SortFunc(events, func(a, b *Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return events, bound, more, nil
}

// traceScope is which complete traces a filter's subscription is read:
// those with a transaction of its single account, or of a watched
// account, or whose external hash is watched (as the live fan-out
// matches them by Event.Accounts and extNorm). A single account with a
// watch set reads the account's traces, and the replay tests the watch
// set in memory (Subscription.keep).
func traceScope(f *store.ActionFilter) (accounts, extNorms []string) {
	if f.Account != "" {
		return []string{f.Account}, nil
	}
	return f.WatchAccounts, f.WatchExtNorms
}

// txScope is which transactions a filter's subscription gets: those of
// its single account or of its watched accounts (a transaction is matched
// by its account, as toncenter matches it; a watched external hash brings
// actions only). none is true when the filter watches only hashes.
func txScope(f *store.ActionFilter) (accounts []string, none bool) {
	switch {
	case f.Account != "" && len(f.WatchAccounts) > 0:
		if slices.Contains(f.WatchAccounts, f.Account) {
			return []string{f.Account}, false
		}
		return nil, true
	case f.Account != "":
		return []string{f.Account}, false
	case len(f.WatchAccounts) > 0:
		return f.WatchAccounts, false
	}
	return nil, len(f.WatchExtNorms) > 0
}

// txMatches is matches for the event of a transaction or of what it
// changed: the single account filter (the watch set is tested by
// watch.passes); the other filters are of actions.
func txMatches(f *store.ActionFilter, e *Event) bool {
	return f.Account == "" || slices.Contains(e.Accounts(), f.Account)
}
