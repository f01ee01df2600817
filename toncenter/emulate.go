package toncenter

import (
	"github.com/tonql/tonql/chain"
)

// EmulateTraceResponse is the answer of toncenter's emulation service
// (POST /api/emulate/v1/emulateTrace and /emulateTonConnect): the emulated
// trace as a tree and its transactions by hash, and what was asked for.
type EmulateTraceResponse struct {
	McBlockSeqno uint32                  `json:"mc_block_seqno"`
	Trace        *TraceNode              `json:"trace"`
	Transactions map[string]*Transaction `json:"transactions"`
	Actions      *[]*chain.Action        `json:"actions,omitempty"`
	AddressBook  *chain.AddressBook      `json:"address_book,omitempty"`
	Metadata     *chain.Metadata         `json:"metadata,omitempty"`
	RandSeed     string                  `json:"rand_seed"`
	IsIncomplete bool                    `json:"is_incomplete"`
}

// RenderEmulation renders emulated transactions (the external message's
// first) in the trace shape of RenderTrace, each marked emulated and
// pending (no block holds it), at masterchain block mcSeqno: the one whose
// states the emulation ran on.
func RenderEmulation(txs []*chain.Transaction, complete bool, mcSeqno uint32) (*EmulateTraceResponse, error) {
	tr, err := RenderTrace(&TraceData{Transactions: txs, Complete: complete})
	if err != nil {
		return nil, err
	}
	seqno := int64(mcSeqno)
	for _, t := range tr.Transactions {
		t.Emulated = true
		t.Finality = "pending"
		t.McBlockSeqno = &seqno
	}
	return &EmulateTraceResponse{McBlockSeqno: mcSeqno, Trace: tr.Trace, Transactions: tr.Transactions,
		IsIncomplete: !complete}, nil
}
