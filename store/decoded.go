package store

import (
	"encoding/json"

	"github.com/tonql/tonql/chain"
)

// txFacts is what a transaction without a raw BOC (imported from decoded
// JSON) knows beyond its row's columns: the phases as the classifier reads
// them (migration 20261201000032). A transaction with a BOC is decoded
// from it again and keeps none.
type txFacts struct {
	PrevHash       string `json:"prev_hash,omitempty"`
	PrevLt         uint64 `json:"prev_lt,omitempty"`
	ComputeSkipped bool   `json:"compute_skipped,omitempty"`
	ComputeSuccess bool   `json:"compute_success,omitempty"`
	ActionSuccess  bool   `json:"action_success,omitempty"`
	ActionResult   int32  `json:"action_result,omitempty"`
	Destroyed      bool   `json:"destroyed,omitempty"`
	Bounced        bool   `json:"bounced,omitempty"`
}

// msgFacts is the same for a message of such a transaction.
type msgFacts struct {
	ExtraCurrencies map[uint32]string `json:"extra_currencies,omitempty"`
	IhrFee          uint64            `json:"ihr_fee,omitempty"`
	CreatedAt       uint32            `json:"created_at,omitempty"`
}

// jsonText is v as JSON text, nil when v is its zero value ("{}").
func jsonText(v any) *string {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "{}" {
		return nil
	}
	s := string(b)
	return &s
}

func newTxFacts(t *chain.Transaction) *string {
	if len(t.BOC) > 0 {
		return nil
	}
	return jsonText(txFacts{
		PrevHash: hashText(t.PrevHash), PrevLt: t.PrevLt,
		ComputeSkipped: t.ComputeSkipped, ComputeSuccess: t.ComputeSuccess,
		ActionSuccess: t.ActionSuccess, ActionResult: t.ActionResult,
		Destroyed: t.Destroyed, Bounced: t.Bounced,
	})
}

func newMsgFacts(m *chain.Message) *string {
	return jsonText(msgFacts{ExtraCurrencies: m.ExtraCurrencies, IhrFee: m.IhrFee, CreatedAt: m.CreatedAt})
}

// applyTxFacts puts a row's stored facts on its transaction; a row
// written before they were kept leaves the approximation from its
// columns.
func applyTxFacts(tx *chain.Transaction, s *string) {
	if s == nil {
		return
	}
	var f txFacts
	if !scanTxFacts(*s, &f) {
		if f = (txFacts{}); json.Unmarshal([]byte(*s), &f) != nil {
			return
		}
	}
	tx.PrevHash, tx.PrevLt = parseHashText(f.PrevHash), f.PrevLt
	tx.ComputeSkipped, tx.ComputeSuccess = f.ComputeSkipped, f.ComputeSuccess
	tx.ActionSuccess, tx.ActionResult = f.ActionSuccess, f.ActionResult
	tx.Destroyed, tx.Bounced = f.Destroyed, f.Bounced
}

func applyMsgFacts(m *chain.Message, s *string) {
	if s == nil {
		return
	}
	var f msgFacts
	if !scanMsgFacts(*s, &f) {
		if f = (msgFacts{}); json.Unmarshal([]byte(*s), &f) != nil {
			return
		}
	}
	m.ExtraCurrencies, m.IhrFee, m.CreatedAt = f.ExtraCurrencies, f.IhrFee, f.CreatedAt
}
