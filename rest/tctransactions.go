package rest

import (
	"encoding/json"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// tcTransactionsNotification is toncenter's streaming v2
// TransactionsNotification: one transaction per notification (toncenter
// groups a trace's), finalized, and our resume cursor when asked for.
type tcTransactionsNotification struct {
	Type                  string                   `json:"type"`
	Finality              string                   `json:"finality"`
	TraceExternalHashNorm string                   `json:"trace_external_hash_norm"`
	Transactions          []*toncenter.Transaction `json:"transactions"`
	// Pointers, as toncenter's: an empty object asked for is written.
	AddressBook *chain.AddressBook `json:"address_book,omitempty"`
	Metadata    *chain.Metadata    `json:"metadata,omitempty"`
	Cursor      string             `json:"cursor,omitempty"`
}

// tcTransactions writes a transaction's event as toncenter's
// TransactionsNotification: its address book and metadata (of its account
// and its messages' ends) only when asked for, as toncenter sends them.
func tcTransactions(e *notify.Event, book, meta, cursor bool) ([]byte, error) {
	rt, b, md, err := e.Tx.Rendered()
	if err != nil {
		return nil, err
	}
	n := tcTransactionsNotification{Type: notify.TypeTransactions, Finality: resolvers.FinalityFinalized,
		TraceExternalHashNorm: e.Tx.TraceExternalHashNorm, Transactions: []*toncenter.Transaction{rt}}
	if book {
		if b == nil {
			b = chain.AddressBook{}
		}
		n.AddressBook = &b
	}
	if meta {
		if md == nil {
			md = chain.Metadata{}
		}
		n.Metadata = &md
	}
	if cursor {
		n.Cursor = resolvers.EncodeStreamCursor(e.Seq)
	}
	return json.Marshal(&n)
}
