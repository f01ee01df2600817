package notify

import (
	"context"
	"encoding/json"
	"sort"
	"sync"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// TypeTrace is the event of a trace stored complete (toncenter's
// streaming v2 TraceNotification).
const TypeTrace = "trace"

// TraceEvent is a trace told once, when it is stored complete, rendered
// once as /api/v3/traces renders it (toncenter.RenderTrace: its
// transactions and its tree) for every subscriber and protocol, with its
// stored actions read in the same read that made the event.
type TraceEvent struct {
	Trace *store.SeqTrace
	// accounts are the accounts of its transactions, sorted, each once:
	// a watched one brings the event.
	accounts []string
	// actions are the trace's stored actions, nested ones too, in page
	// order (end_lt, action_id), at most maxTraceActions.
	actions []*chain.Action
	book    chain.AddressBook
	tokens  chain.Metadata

	once      sync.Once
	rendered  *toncenter.Trace
	tcActions []*toncenter.Action // actions in toncenter's dialect, one for one
	page      tracePage
	json      []byte
	err       error
}

// maxTraceActions bounds the actions a trace event carries: one page of
// /api/v3/actions?trace_id= (toncenter's limit), so an event's read and
// size stay bounded whatever the trace.
const maxTraceActions = toncenter.MaxLimit

// tracePage is a /api/v3/traces answer of one trace plus its top-level
// actions as /api/v3/actions?trace_id= shows them, with the address book
// and the metadata of the tokens among the addresses of both (a stream
// has no second request to make for them).
type tracePage struct {
	Traces      []*toncenter.Trace `json:"traces"`
	Actions     []*chain.Action    `json:"actions"`
	AddressBook chain.AddressBook  `json:"address_book"`
	Metadata    chain.Metadata     `json:"metadata"`
}

func (t *TraceEvent) make() {
	t.once.Do(func() {
		st := &t.Trace.StoredTrace
		if t.rendered, t.err = toncenter.RenderTrace(&toncenter.TraceData{ID: st.ID, StartLt: st.StartLt, EndLt: st.EndLt,
			StartUtime: st.StartUtime, EndUtime: st.EndUtime, Complete: st.Complete, Transactions: st.Transactions}); t.err != nil {
			return
		}
		t.tcActions = make([]*toncenter.Action, len(t.actions))
		t.page.Actions = []*chain.Action{}
		for i, a := range t.actions {
			if t.tcActions[i], t.err = toncenter.RenderAction(a); t.err != nil {
				return
			}
			if len(a.Ancestors) == 0 { // a nested one is not on /api/v3/actions by default
				c := *a // DescribeActions below writes its title; t.actions stay as stored
				t.page.Actions = append(t.page.Actions, &c)
			}
		}
		addrs := traceAddresses(st.Transactions, t.actions)
		t.page.Traces = []*toncenter.Trace{t.rendered}
		t.page.AddressBook = t.book.Only(addrs)
		t.page.Metadata = t.tokens.Only(addrs)
		actions.DescribeActions(t.page.Actions, actions.Names{Book: t.page.AddressBook, Metadata: t.page.Metadata})
		t.json, t.err = json.Marshal(&t.page)
	})
}

// Rendered is the trace in toncenter's shape, with the address book and
// metadata of the addresses its transactions and actions show.
func (t *TraceEvent) Rendered() (*toncenter.Trace, chain.AddressBook, chain.Metadata, error) {
	t.make()
	return t.rendered, t.page.AddressBook, t.page.Metadata, t.err
}

// JSON is the event as tracePage.
func (t *TraceEvent) JSON() ([]byte, error) {
	t.make()
	return t.json, t.err
}

// ToncenterActions are the trace's actions a subscription's filter shows,
// in toncenter's dialect: its action_types (or supported_action_types
// without them) and the nested rule of its supported_action_types, as
// toncenter's TraceNotification.AdjustForClient filters them (typeShown,
// the test the subscription's actions pass). Rendered once per event;
// only the choice is the subscriber's.
func (s *Subscription) ToncenterActions(e *Event) ([]*toncenter.Action, error) {
	t := e.Trace
	t.make()
	if t.err != nil {
		return nil, t.err
	}
	var out []*toncenter.Action
	for i, a := range t.actions {
		if typeShown(&s.req.Filter, a) {
			out = append(out, t.tcActions[i])
		}
	}
	return out, nil
}

// ExternalHashNorm is the normalized hash of the external message that
// started the trace; "" when its root had none.
func (t *TraceEvent) ExternalHashNorm() string { return t.Trace.ExternalHashNorm }

// traceAddresses are the addresses a trace's transactions and actions
// show, sorted, each once.
func traceAddresses(txs []*chain.Transaction, acts []*chain.Action) []string {
	seen := map[string]bool{}
	var out []string
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, t := range txs {
		for _, a := range txAddresses(t) {
			add(a)
		}
	}
	for _, x := range acts {
		for _, a := range x.Addresses {
			add(a)
		}
	}
	sort.Strings(out)
	return out
}

// prepareTraces makes events of stored complete traces: one statement
// reads the actions of all of them (store.TraceAllActions, at most
// maxTraceActions each), and one address book read covers them all.
func prepareTraces(ctx context.Context, o *Options, rows []store.SeqTrace) ([]*Event, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	refs := make([]store.TraceRef, len(rows))
	for i := range rows {
		refs[i] = store.TraceRef{ID: rows[i].ID, StartLt: rows[i].StartLt, EndLt: rows[i].EndLt}
	}
	acts, err := o.Store.TraceAllActions(ctx, refs, maxTraceActions)
	if err != nil {
		return nil, err
	}
	var txs []*chain.Transaction
	var all []*chain.Action
	for i := range rows {
		txs = append(txs, rows[i].Transactions...)
		all = append(all, acts[rows[i].ID]...)
	}
	b, md, err := o.Book(ctx, traceAddresses(txs, all))
	if err != nil {
		return nil, err
	}
	out := make([]*Event, len(rows))
	for i := range rows {
		seen := map[string]bool{}
		var accounts []string
		for _, t := range rows[i].Transactions {
			if !seen[t.Account] {
				seen[t.Account] = true
				accounts = append(accounts, t.Account)
			}
		}
		sort.Strings(accounts)
		out[i] = &Event{Seq: rows[i].Seq, Trace: &TraceEvent{Trace: &rows[i], accounts: accounts, actions: acts[rows[i].ID],
			book: b, tokens: md}}
	}
	return out, nil
}
