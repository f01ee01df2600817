package notify

import (
	"context"
	"slices"

	"github.com/tonql/tonql/store"
)

// reading is what one read of the store asks for: the actions matching
// filter, the transactions of txScope, or both.
type reading struct {
	filter     store.ActionFilter
	actions    bool
	txs        bool
	txAccounts []string // nil: every account's
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
	var events []*Event
	bound, more := ^uint64(0), false
	if r.actions && r.txs {
		head, err := o.Store.LastActionSeq(ctx)
		if err != nil {
			return nil, false, err
		}
		bound = head
	}
	if r.actions {
		rows, err := o.Store.ActionsAfter(ctx, r.filter, after, limit)
		if err != nil {
			return nil, false, err
		}
		if len(rows) == limit {
			bound, more = min(bound, rows[len(rows)-1].Seq), true
		}
		if events, err = prepare(ctx, o.Store, o.Book, rows, r.lts, r.msgs); err != nil {
			return nil, false, err
		}
	}
	if r.txs {
		rows, err := o.Store.TransactionsAfter(ctx, r.txAccounts, after, limit)
		if err != nil {
			return nil, false, err
		}
		if len(rows) == limit {
			bound, more = min(bound, rows[len(rows)-1].Seq), true
		}
		txs, err := prepareTxs(ctx, o.Book, rows)
		if err != nil {
			return nil, false, err
		}
		events = append(events, txs...)
		slices.SortFunc(events, func(a, b *Event) int { return cmpSeq(a.Seq, b.Seq) })
	}
	for i, e := range events {
		if e.Seq > bound {
			// committed after the bound: the next read takes it
			events, more = events[:i], true
			break
		}
	}
	return events, more, nil
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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

// txMatches is matches for a transaction's event: the single account
// filter (the watch set is tested by watch.passes); the other filters are
// of actions.
func txMatches(f *store.ActionFilter, e *Event) bool {
	return f.Account == "" || f.Account == e.Tx.Tx.Account
}
