package notify

import (
	"context"
	"sort"
	"sync"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// Event types, named as toncenter's streaming v2 names them.
const (
	TypeActions      = "actions"
	TypeTransactions = "transactions"
)

// Event is one action or transaction told to subscribers: read from the
// store once and shared by every subscriber it matches, so it is never
// changed after it is made. Its views (with or without the accounts list)
// and their JSON are made on first use.
type Event struct {
	Seq    uint64
	Action *chain.Action // Accounts filled; nil for an invalidation and a transaction
	// Tx is a transaction's event (Type TypeTransactions).
	Tx *TxEvent
	// State is an account's state after a transaction (TypeAccountState).
	State *StateEvent
	// Trace is a trace stored complete (TypeTrace).
	Trace *TraceEvent
	// Jetton is a jetton wallet after a transaction (TypeJettons).
	Jetton *JettonEvent
	// Pending marks an emulated action of a message sent through this
	// server, told before its trace is stored; its Seq is the position it
	// was told at and moves no subscriber's position.
	Pending bool
	// Invalidated is the normalized external hash of a pending trace that
	// was not stored in time: its pending actions are void.
	Invalidated string
	facts       *store.MatchFacts
	book        chain.AddressBook // entries of Addresses and Accounts
	tokens      chain.Metadata    // metadata of the tokens among them

	views [2]view // without, with accounts
}

// Type is the event's type name.
func (e *Event) Type() string {
	switch {
	case e.Tx != nil:
		return TypeTransactions
	case e.State != nil:
		return TypeAccountState
	case e.Trace != nil:
		return TypeTrace
	case e.Jetton != nil:
		return TypeJettons
	}
	return TypeActions
}

// Accounts are the accounts the event concerns: an action's participants,
// a transaction's or a state's own account, the accounts of a trace's
// transactions, a jetton wallet and its owner (toncenter matches a
// JettonsNotification by either). A watched one brings the event.
func (e *Event) Accounts() []string {
	switch {
	case e.Tx != nil:
		return []string{e.Tx.Tx.Account}
	case e.State != nil:
		return []string{e.State.Tx.Account}
	case e.Trace != nil:
		return e.Trace.accounts
	case e.Jetton != nil:
		return []string{e.Jetton.Wallet.Address, e.Jetton.Wallet.Owner}
	}
	if e.Action == nil {
		return nil
	}
	return e.Action.Accounts
}

// extNorm is the normalized hash of the external message of the event's
// trace, nil when unknown; a watched one brings an action or a trace (a
// transaction is matched by its account only, as toncenter matches it).
func (e *Event) extNorm() *string {
	if e.Trace != nil {
		if e.Trace.Trace.ExternalHashNorm == "" {
			return nil
		}
		return &e.Trace.Trace.ExternalHashNorm
	}
	if e.Action == nil {
		return nil
	}
	return e.Action.TraceExternalHashNorm
}

type view struct {
	once sync.Once
	list chain.ActionList
	json []byte
	err  error
}

// List is the event as a /api/v3/actions page of one action: the action,
// its accounts only when asked for, and the address book and metadata of
// what it shows.
func (e *Event) List(includeAccounts bool) *chain.ActionList {
	v := e.view(includeAccounts)
	return &v.list
}

// JSON is List encoded as /api/v3/actions encodes a page; a transaction's
// is TxEvent.JSON, a state's StateEvent.JSON, a trace's TraceEvent.JSON,
// a jetton wallet's JettonEvent.JSON.
func (e *Event) JSON(includeAccounts bool) ([]byte, error) {
	switch {
	case e.Tx != nil:
		return e.Tx.JSON()
	case e.State != nil:
		return e.State.JSON()
	case e.Trace != nil:
		return e.Trace.JSON()
	case e.Jetton != nil:
		return e.Jetton.JSON()
	}
	v := e.view(includeAccounts)
	return v.json, v.err
}

func (e *Event) view(includeAccounts bool) *view {
	i := 0
	if includeAccounts {
		i = 1
	}
	v := &e.views[i]
	v.once.Do(func() {
		a := *e.Action
		if !includeAccounts {
			a.Accounts = nil
		}
		v.list.Actions = []*chain.Action{&a}
		addrs := v.list.BookAddresses()
		v.list.AddressBook = e.book.Only(addrs)
		v.list.Metadata = e.tokens.Only(addrs)
		actions.DescribeActions(v.list.Actions, actions.Names{Book: v.list.AddressBook, Metadata: v.list.Metadata})
		v.json, v.err = v.list.AppendJSON(nil)
	})
	return v
}

// BookFunc makes the address book of addresses and the metadata object of
// the tokens among them (resolvers' AddressBookAndMetadata: the same
// entries /api/v3/actions shows).
type BookFunc func(ctx context.Context, addrs []string) (chain.AddressBook, chain.Metadata, error)

// prepare makes events of stored actions: one address book read for all of
// them, and the match facts when a subscriber's filter needs them.
func prepare(ctx context.Context, st *store.Store, book BookFunc, rows []store.SeqAction, lts, msgs bool) ([]*Event, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	var addrs, ids []string
	for _, r := range rows {
		ids = append(ids, r.ActionID)
		for _, list := range [][]string{r.Addresses, r.Accounts} {
			for _, a := range list {
				if !seen[a] {
					seen[a] = true
					addrs = append(addrs, a)
				}
			}
		}
	}
	sort.Strings(addrs)
	b, md, err := book(ctx, addrs)
	if err != nil {
		return nil, err
	}
	var facts map[string]*store.MatchFacts
	if lts || msgs {
		if facts, err = st.ActionMatchFacts(ctx, ids, lts, msgs); err != nil {
			return nil, err
		}
	}
	out := make([]*Event, len(rows))
	for i, r := range rows {
		out[i] = &Event{Seq: r.Seq, Action: r.Action, book: b, tokens: md, facts: facts[r.ActionID]}
	}
	return out, nil
}
