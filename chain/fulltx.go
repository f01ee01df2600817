package chain

import (
	"encoding/base64"
	"fmt"
)

// FullTransaction is a transaction as an action's transactions_full shows
// it (REST with include_transactions=true, GraphQL's Action.transactions_full):
// toncenter v3's Transaction fields, named as toncenter names them, for the
// facts the store keeps, plus our success/aborted/compute_exit_code, which
// stand in for toncenter's description (the store keeps no phases). One
// struct serves both: REST marshals it, GraphQL binds to its fields, so
// the two cannot drift.
type FullTransaction struct {
	Hash    string `json:"hash"`
	Account string `json:"account"` // raw; GraphQL's account is the Account link, its raw form account_address
	Lt      uint64 `json:"lt"`
	Now     uint32 `json:"now"`
	// McBlockSeqno is the masterchain block that committed it, when known.
	McBlockSeqno    *uint32        `json:"mc_block_seqno"`
	TraceID         string         `json:"trace_id"`
	OrigStatus      string         `json:"orig_status"`
	EndStatus       string         `json:"end_status"`
	TotalFees       uint64         `json:"total_fees"`
	Success         bool           `json:"success"`
	Aborted         bool           `json:"aborted"`
	ComputeExitCode int            `json:"compute_exit_code"`
	InMsg           *FullMessage   `json:"in_msg"`
	OutMsgs         []*FullMessage `json:"out_msgs"`
}

// FullMessage is a message as toncenter v3 shows it, for the facts the
// store keeps (no created_at, ihr_fee or extra currencies).
type FullMessage struct {
	Hash string `json:"hash"`
	// Source is null for an external inbound message, Destination for an
	// external outbound one (log), as toncenter has them.
	Source      *string `json:"source"`
	Destination *string `json:"destination"`
	Value       uint64  `json:"value"`
	FwdFee      uint64  `json:"fwd_fee"`
	CreatedLt   uint64  `json:"created_lt"`
	// Opcode is 0x + 8 hex digits, as in actions' values; null without one.
	Opcode   *string `json:"opcode"`
	Bounce   bool    `json:"bounce"`
	Bounced  bool    `json:"bounced"`
	HashNorm *string `json:"hash_norm"`
	// MessageContent and InitState carry base64 BOCs, null when absent.
	MessageContent *MessageContent `json:"message_content"`
	InitState      *MessageContent `json:"init_state"`
}

// MessageContent is a cell of a message (its body or its StateInit).
type MessageContent struct {
	Body string `json:"body"` // standard base64 of the BOC
}

// NewFullTransaction is tx as transactions_full shows it; messages are
// shown when tx carries them (the store reads them only when asked).
func NewFullTransaction(tx *Transaction) *FullTransaction {
	t := &FullTransaction{Hash: tx.Hash.Base64(), Account: tx.Account, Lt: tx.Lt, Now: tx.Utime,
		TraceID: tx.TraceID.Base64(), OrigStatus: tx.OrigStatus, EndStatus: tx.EndStatus,
		TotalFees: tx.TotalFees, Success: tx.Success(), Aborted: tx.Aborted,
		ComputeExitCode: int(tx.ComputeExitCode), OutMsgs: make([]*FullMessage, 0, len(tx.OutMsgs))}
	if tx.McSeqno != 0 {
		n := tx.McSeqno
		t.McBlockSeqno = &n
	}
	if tx.InMsg != nil {
		t.InMsg = NewFullMessage(tx.InMsg)
	}
	for i := range tx.OutMsgs {
		t.OutMsgs = append(t.OutMsgs, NewFullMessage(&tx.OutMsgs[i]))
	}
	return t
}

// NewFullMessage is a message as GraphQL and transactions_full show it.
func NewFullMessage(m *Message) *FullMessage {
	out := &FullMessage{Hash: m.Hash.Base64(), Source: Optional(m.Source), Destination: Optional(m.Destination),
		Value: m.Value, FwdFee: m.FwdFee, CreatedLt: m.CreatedLt, Bounce: m.Bounce, Bounced: m.Bounced,
		MessageContent: content(m.Body), InitState: content(m.InitState)}
	if m.Opcode != nil {
		s := fmt.Sprintf("0x%08x", *m.Opcode)
		out.Opcode = &s
	}
	if h, ok := NormalizedHash(m); ok { // stored, or computed for an emulated message
		s := h.Base64()
		out.HashNorm = &s
	}
	return out
}

// Optional is s, or nil when it is empty: a value the store does not know
// (JSON null, or a GraphQL field's null).
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func content(boc []byte) *MessageContent {
	if len(boc) == 0 {
		return nil
	}
	return &MessageContent{Body: base64.StdEncoding.EncodeToString(boc)}
}

// TraceInfo is what the store keeps of a trace, as the graph shows it.
type TraceInfo struct {
	TraceID    string `json:"trace_id"`
	StartLt    uint64 `json:"start_lt"`
	EndLt      uint64 `json:"end_lt"`
	StartUtime uint32 `json:"start_utime"`
	EndUtime   uint32 `json:"end_utime"`
	// Complete: every internal message sent inside the trace was processed.
	Complete          bool `json:"complete"`
	TransactionsCount int  `json:"transactions_count"`
	// ExternalHashNorm is the TEP-467 normalized hash of the external
	// message that started the trace (nil for a trace without one).
	ExternalHashNorm *string `json:"external_hash_norm"`
}
