package rest

import (
	"encoding/json"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// tcTraceNotification is toncenter's streaming v2 TraceNotification: a
// trace stored complete, finalized, its tree, its transactions by hash,
// its actions the subscription's filters show (omitted when none), and
// our resume cursor when asked for.
type tcTraceNotification struct {
	Type                  string                            `json:"type"`
	Finality              string                            `json:"finality"`
	TraceExternalHashNorm string                            `json:"trace_external_hash_norm"`
	Trace                 *toncenter.TraceNode              `json:"trace"`
	Transactions          map[string]*toncenter.Transaction `json:"transactions"`
	Actions               []*toncenter.Action               `json:"actions,omitempty"`
	// Pointers, as toncenter's: an empty object asked for is written.
	AddressBook *chain.AddressBook `json:"address_book,omitempty"`
	Metadata    *chain.Metadata    `json:"metadata,omitempty"`
	Cursor      string             `json:"cursor,omitempty"`
}

// tcTrace writes a trace's event as toncenter's TraceNotification for
// the subscriber st: the actions its action_types and
// supported_action_types show; the address book and metadata (of the
// addresses the trace's transactions and actions show) only when asked
// for, as toncenter sends them.
func tcTrace(st *resolvers.ActionStream, e *notify.Event, book, meta, cursor bool) ([]byte, error) {
	tr, b, md, err := e.Trace.Rendered()
	if err != nil {
		return nil, err
	}
	acts, err := st.ToncenterActions(e)
	if err != nil {
		return nil, err
	}
	n := tcTraceNotification{Type: notify.TypeTrace, Finality: resolvers.FinalityFinalized,
		TraceExternalHashNorm: e.Trace.ExternalHashNorm(), Trace: tr.Trace, Transactions: tr.Transactions, Actions: acts}
	if book {
		n.AddressBook = &b
	}
	if meta {
		n.Metadata = &md
	}
	if cursor {
		n.Cursor = resolvers.EncodeStreamCursor(e.Seq)
	}
	return json.Marshal(&n)
}
