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
	lts, msgs  bool     // the match facts the live filters test
}

// read returns the events after `after` of the kinds r asks for, in seq
// order, up to limit of each kind, and whether more may wait. Each kind is
// read by its own statement, and each statement sees what was committed
// when it began: a commit between the two would be seen by the second
// only, and a commit's transactions and actions are numbered together, so
// the actions of a commit the actions' read missed would fall below the
// last transaction told and never be read again. So when both kinds are
// read, both are cut at the counter's committed value read before them
// (every seq at or below it is visible to both). When one kind's page was
// full, the other kind's events past its last seq are left for the next
// read as well, so the merged order has no gap.
func read(ctx context.Context, o *Options, r reading, after uint64, limit int) ([]*Event, bool, error) {
	bound, more := ^uint64(0), false
	txRows := r.txs || r.states
	if r.actions && txRows {
		head, err := o.Store.LastActionSeq(ctx)
		if err != nil {
			return nil, false, err
		}
		bound = head
	}
	var acts []store.SeqAction
	var txs []store.SeqTx
	var err error
	if r.actions {
		if acts, err = o.Store.ActionsAfter(ctx, r.filter, after, limit); err != nil {
			return nil, false, err
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
			return nil, false, err
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
	events, err := prepare(ctx, o.Store, o.Book, acts, r.lts, r.msgs)
	if err != nil || len(txs) == 0 {
		return events, more, err
	}
	if r.txs {
		own := slices.DeleteFunc(slices.Clone(txs), func(t store.SeqTx) bool { return t.Seq <= after })
		txEvents, err := prepareTxs(ctx, o.Book, own)
		if err != nil {
			return nil, false, err
		}
		events = append(events, txEvents...)
	}
	if r.states {
		stEvents, err := prepareStates(ctx, o, txs, after)
		if err != nil {
			return nil, false, err
		}
		events = append(events, stEvents...)
	}
	slices.SortFunc(events, func(a, b *Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return events, more, nil
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
