package toncenter

import (
	"encoding/base64"

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
	// CodeCells and DataCells (include_code_data) are the code and data of
	// the emulated accounts as the trace leaves them: BOC (base64) by hash
	// (base64), the keys of account_state_after's code_hash and data_hash.
	CodeCells    *map[string]string `json:"code_cells,omitempty"`
	DataCells    *map[string]string `json:"data_cells,omitempty"`
	AddressBook  *chain.AddressBook `json:"address_book,omitempty"`
	Metadata     *chain.Metadata    `json:"metadata,omitempty"`
	RandSeed     string             `json:"rand_seed"`
	IsIncomplete bool               `json:"is_incomplete"`
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

// StateAfter is what the emulator says of an account after an emulated
// transaction; nil hashes: it has no code or data.
type StateAfter struct {
	Balance            uint64
	Status             string // toncenter's: "active", "uninit", ...
	CodeHash, DataHash *chain.Hash
}

// SetStateAfter fills a rendered emulated transaction's account_state_after
// (which a transaction's BOC gives only the hash of).
func (t *Transaction) SetStateAfter(s StateAfter) {
	if t.AccountStateAfter == nil {
		return
	}
	a := t.AccountStateAfter
	a.Balance, a.AccountStatus = ptr(u64(s.Balance)), ptr(s.Status)
	if s.CodeHash != nil {
		a.CodeHash = ptr(s.CodeHash.Base64())
	}
	if s.DataHash != nil {
		a.DataHash = ptr(s.DataHash.Base64())
	}
}

// Cells renders BOCs by hash as toncenter's code_cells and data_cells.
func Cells(m map[string][]byte) *map[string]string {
	out := make(map[string]string, len(m))
	for h, b := range m {
		out[h] = base64.StdEncoding.EncodeToString(b)
	}
	return &out
}
