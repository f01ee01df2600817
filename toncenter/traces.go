package toncenter

import (
	"strconv"

	"github.com/tonql/tonql/chain"
)

// TraceMeta is toncenter's trace_info.
type TraceMeta struct {
	TraceState          string `json:"trace_state"`
	Messages            int64  `json:"messages"`
	Transactions        int64  `json:"transactions"`
	PendingMessages     int64  `json:"pending_messages"`
	ClassificationState string `json:"classification_state"`
}

// TraceNode is toncenter's TraceNode: a transaction and the ones its
// out-messages caused.
type TraceNode struct {
	TxHash    string       `json:"tx_hash,omitempty"`
	InMsgHash string       `json:"in_msg_hash,omitempty"`
	Children  []*TraceNode `json:"children"`
}

// Trace is toncenter's Trace; Actions only when asked (include_actions).
type Trace struct {
	TraceID           *string                 `json:"trace_id"`
	ExternalHash      *string                 `json:"external_hash"`
	McSeqnoStart      *string                 `json:"mc_seqno_start"`
	McSeqnoEnd        *string                 `json:"mc_seqno_end"`
	StartLt           string                  `json:"start_lt"`
	StartUtime        uint32                  `json:"start_utime"`
	EndLt             *string                 `json:"end_lt"`
	EndUtime          *uint32                 `json:"end_utime"`
	TraceMeta         TraceMeta               `json:"trace_info"`
	IsIncomplete      bool                    `json:"is_incomplete"`
	Warning           string                  `json:"warning,omitempty"`
	Trace             *TraceNode              `json:"trace,omitempty"`
	Actions           *[]*Action              `json:"actions,omitempty"`
	TransactionsOrder []string                `json:"transactions_order,omitempty"`
	Transactions      map[string]*Transaction `json:"transactions,omitempty"`
}

// TracesResponse is toncenter's TracesResponse (metadata: of the tokens the
// included actions name, else {}).
type TracesResponse struct {
	Traces      []*Trace          `json:"traces"`
	AddressBook chain.AddressBook `json:"address_book"`
	Metadata    chain.Metadata    `json:"metadata"`
}

// EventsResponse is toncenter's DeprecatedEventsResponse (/api/v3/events).
type EventsResponse struct {
	Events      []*Trace          `json:"events"`
	AddressBook chain.AddressBook `json:"address_book"`
	Metadata    chain.Metadata    `json:"metadata"`
}

// TraceData is a stored trace: its row and its transactions by lt.
type TraceData struct {
	ID                   string
	StartLt, EndLt       uint64
	StartUtime, EndUtime uint32
	Complete             bool
	Transactions         []*chain.Transaction
}

// RenderTrace renders a trace with its transactions (in lt order) and its
// tree: a transaction's children are those whose in-message it sent.
// trace_state is complete or pending as the store knows it;
// classification_state is "ok" (its actions are decoded when stored).
// The tree is built from the rendered transactions' messages, so a
// transaction with its raw BOC needs no message rows: its messages are
// decoded from the BOC (store.MessagesWithoutBOC).
func RenderTrace(d *TraceData) (*Trace, error) {
	id := d.ID
	out := &Trace{
		TraceID: &id, StartLt: u64(d.StartLt), StartUtime: d.StartUtime,
		EndLt: ptr(u64(d.EndLt)), EndUtime: ptr(d.EndUtime),
		IsIncomplete: !d.Complete, TransactionsOrder: []string{}, Transactions: map[string]*Transaction{},
		TraceMeta: TraceMeta{TraceState: "complete", ClassificationState: "ok", Transactions: int64(len(d.Transactions))},
	}
	if !d.Complete {
		out.TraceMeta.TraceState = "pending"
	}
	var mcMin, mcMax uint32
	sentBy := map[string]*TraceNode{} // out-message hash -> the node that sent it
	nodes := make([]*TraceNode, len(d.Transactions))
	rendered := make([]*Transaction, len(d.Transactions))
	received := map[string]bool{}
	for i, t := range d.Transactions {
		rt, err := RenderTransaction(t)
		if err != nil {
			return nil, err
		}
		rendered[i] = rt
		out.Transactions[rt.Hash] = rt
		out.TransactionsOrder = append(out.TransactionsOrder, rt.Hash)
		n := &TraceNode{TxHash: rt.Hash, Children: []*TraceNode{}}
		if rt.InMsg != nil {
			n.InMsgHash = rt.InMsg.Hash
			received[rt.InMsg.Hash] = true
			out.TraceMeta.Messages++
		}
		for _, m := range rt.OutMsgs {
			sentBy[m.Hash] = n
		}
		nodes[i] = n
		if t.McSeqno != 0 {
			if mcMin == 0 || t.McSeqno < mcMin {
				mcMin = t.McSeqno
			}
			mcMax = max(mcMax, t.McSeqno)
		}
	}
	for _, rt := range rendered {
		for _, m := range rt.OutMsgs {
			if !received[m.Hash] && m.Destination != nil {
				out.TraceMeta.PendingMessages++
			}
		}
	}
	for i, rt := range rendered {
		var parent *TraceNode
		if rt.InMsg != nil {
			parent = sentBy[rt.InMsg.Hash]
		}
		if parent != nil && parent != nodes[i] {
			parent.Children = append(parent.Children, nodes[i])
		} else if out.Trace == nil {
			out.Trace = nodes[i]
			if rt.InMsg != nil && rt.InMsg.Source == nil {
				out.ExternalHash = ptr(rt.InMsg.Hash)
			}
		}
	}
	if mcMin != 0 {
		out.McSeqnoStart = ptr(strconv.FormatUint(uint64(mcMin), 10))
		out.McSeqnoEnd = ptr(strconv.FormatUint(uint64(mcMax), 10))
	}
	return out, nil
}
