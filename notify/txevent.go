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

// TxEvent is a transaction told to subscribers, rendered once in
// toncenter's Transaction shape (what /api/v3/transactions shows) for every
// subscriber and protocol.
type TxEvent struct {
	Tx *chain.Transaction
	// TraceExternalHashNorm is the normalized hash of the external message
	// that started its trace; "" when none is known.
	TraceExternalHashNorm string
	book                  chain.AddressBook
	tokens                chain.Metadata

	once     sync.Once
	rendered *toncenter.Transaction
	page     txPage
	json     []byte
	err      error
}

// txPage is a /api/v3/transactions answer of one transaction, with the
// metadata of the tokens among its addresses (which that route leaves to
// /api/v3/metadata: a stream has no second request to make).
type txPage struct {
	Transactions []*toncenter.Transaction `json:"transactions"`
	AddressBook  chain.AddressBook        `json:"address_book"`
	Metadata     chain.Metadata           `json:"metadata"`
}

func (t *TxEvent) make() {
	t.once.Do(func() {
		if t.rendered, t.err = toncenter.RenderTransaction(t.Tx); t.err != nil {
			return
		}
		addrs := txAddresses(t.Tx)
		t.page.Transactions = []*toncenter.Transaction{t.rendered}
		t.page.AddressBook = t.book.Only(addrs)
		t.page.Metadata = t.tokens.Only(addrs)
		t.json, t.err = json.Marshal(&t.page)
	})
}

// Rendered is the transaction in toncenter's shape, with the address book
// and metadata of its addresses (its account and its messages' ends).
func (t *TxEvent) Rendered() (*toncenter.Transaction, chain.AddressBook, chain.Metadata, error) {
	t.make()
	return t.rendered, t.page.AddressBook, t.page.Metadata, t.err
}

// JSON is the event as a /api/v3/transactions answer of one transaction
// (txPage).
func (t *TxEvent) JSON() ([]byte, error) {
	t.make()
	return t.json, t.err
}

// txAddresses are the addresses a transaction shows: its account and its
// messages' ends, sorted, each once.
func txAddresses(t *chain.Transaction) []string {
	seen := map[string]bool{}
	var out []string
	add := func(a string) {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	add(t.Account)
	if t.InMsg != nil {
		add(t.InMsg.Source)
		add(t.InMsg.Destination)
	}
	for i := range t.OutMsgs {
		add(t.OutMsgs[i].Source)
		add(t.OutMsgs[i].Destination)
	}
	sort.Strings(out)
	return out
}

// prepareTxs makes events of stored transactions: one address book read
// for all of them.
func prepareTxs(ctx context.Context, book BookFunc, rows []store.SeqTx) ([]*Event, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	var addrs []string
	for _, r := range rows {
		for _, a := range txAddresses(r.Transaction) {
			if !seen[a] {
				seen[a] = true
				addrs = append(addrs, a)
			}
		}
	}
	sort.Strings(addrs)
	b, md, err := book(ctx, addrs)
	if err != nil {
		return nil, err
	}
	out := make([]*Event, len(rows))
	for i, r := range rows {
		out[i] = &Event{Seq: r.Seq, Tx: &TxEvent{Tx: r.Transaction, TraceExternalHashNorm: r.TraceExternalHashNorm, book: b, tokens: md}}
	}
	return out, nil
}
