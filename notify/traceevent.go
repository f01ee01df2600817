package notify

import (
	"context"
	"encoding/json"
	"sort"
	"sync"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// TypeTrace is the event of a trace stored complete (toncenter's
// streaming v2 TraceNotification).
const TypeTrace = "trace"

// TraceEvent is a trace told once, when it is stored complete, rendered
// once as /api/v3/traces renders it (toncenter.RenderTrace: its
// transactions and its tree) for every subscriber and protocol.
type TraceEvent struct {
	Trace *store.SeqTrace
	// accounts are the accounts of its transactions, sorted, each once:
	// a watched one brings the event.
	accounts []string
	book     chain.AddressBook
	tokens   chain.Metadata

	once     sync.Once
	rendered *toncenter.Trace
	page     tracePage
	json     []byte
	err      error
}

// tracePage is a /api/v3/traces answer of one trace, with the metadata of
// the tokens among its addresses (a stream has no second request to make
// for them).
type tracePage struct {
	Traces      []*toncenter.Trace `json:"traces"`
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
		addrs := traceAddresses(st.Transactions)
		t.page.Traces = []*toncenter.Trace{t.rendered}
		t.page.AddressBook = t.book.Only(addrs)
		t.page.Metadata = t.tokens.Only(addrs)
		t.json, t.err = json.Marshal(&t.page)
	})
}

// Rendered is the trace in toncenter's shape, with the address book and
// metadata of the addresses its transactions show.
func (t *TraceEvent) Rendered() (*toncenter.Trace, chain.AddressBook, chain.Metadata, error) {
	t.make()
	return t.rendered, t.page.AddressBook, t.page.Metadata, t.err
}

// JSON is the event as tracePage.
func (t *TraceEvent) JSON() ([]byte, error) {
	t.make()
	return t.json, t.err
}

// ExternalHashNorm is the normalized hash of the external message that
// started the trace; "" when its root had none.
func (t *TraceEvent) ExternalHashNorm() string { return t.Trace.ExternalHashNorm }

// traceAddresses are the addresses a trace's transactions show, sorted,
// each once.
func traceAddresses(txs []*chain.Transaction) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range txs {
		for _, a := range txAddresses(t) {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	sort.Strings(out)
	return out
}

// prepareTraces makes events of stored complete traces: one address book
// read for all of them.
func prepareTraces(ctx context.Context, book BookFunc, rows []store.SeqTrace) ([]*Event, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var txs []*chain.Transaction
	for i := range rows {
		txs = append(txs, rows[i].Transactions...)
	}
	b, md, err := book(ctx, traceAddresses(txs))
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
		out[i] = &Event{Seq: rows[i].Seq, Trace: &TraceEvent{Trace: &rows[i], accounts: accounts, book: b, tokens: md}}
	}
	return out, nil
}
