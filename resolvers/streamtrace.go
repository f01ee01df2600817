package resolvers

import (
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/notify"
)

// traceEvent is a trace event of Subscription.events: the trace's row
// (its transactions and actions resolve from the store as Query.trace's
// do), with the address book and metadata of what its transactions show.
func traceEvent(e *notify.Event) *model.StreamEvent {
	st := &e.Trace.Trace.StoredTrace
	info := &chain.TraceInfo{TraceID: st.ID, StartLt: st.StartLt, EndLt: st.EndLt, StartUtime: st.StartUtime,
		EndUtime: st.EndUtime, Complete: st.Complete, TransactionsCount: len(st.Transactions)}
	ev := &model.StreamEvent{Cursor: EncodeStreamCursor(e.Seq), Type: EventTrace, Finality: FinalityFinalized, Trace: info}
	if x := e.Trace.ExternalHashNorm(); x != "" {
		info.ExternalHashNorm, ev.TraceExternalHashNorm = &x, &x
	}
	_, book, md, err := e.Trace.Rendered()
	if err != nil {
		book, md = chain.AddressBook{}, chain.Metadata{}
	}
	ev.AddressBook, ev.Metadata = book, md
	return ev
}
