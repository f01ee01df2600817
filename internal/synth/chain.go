package synth

import (
	"crypto/sha256"

	"github.com/tonql/tonql/chain"
)

// Chain makes the transactions, messages and trace rows behind generated
// actions, as an import of trace JSON writes them (no raw BOC): each
// action's transactions (its hashes and lts) run along its
// participants, the first one's account taking an external message and
// each next one taking an internal message sent by the one before, so
// that /api/v3/transactions, /messages and /traces have the rows of every
// action to read. actions must hold each of their traces whole.
func Chain(actions []chain.Action) ([]*chain.Transaction, []*chain.Trace) {
	var txs []*chain.Transaction
	var traces []*chain.Trace
	byID := map[string]*chain.Trace{}
	msgHash := func(kind, tx string) chain.Hash { return chain.Hash(sha256.Sum256([]byte(kind + tx))) }
	for ai := range actions {
		a := &actions[ai]
		traceID, err := chain.ParseHash(a.TraceID)
		if err != nil {
			panic("synth: generated trace id " + a.TraceID) // synth writes base64 hashes
		}
		// In the value's order (the sender first), not Accounts' sorted one.
		accts := make([]string, 0, len(a.Participants))
		for _, p := range a.Participants {
			accts = append(accts, p.Address)
		}
		if len(accts) == 0 {
			accts = []string{""}
		}
		var prev *chain.Transaction
		for i, h := range a.Transactions {
			hash, _ := chain.ParseHash(h)
			t := &chain.Transaction{Hash: hash, Account: accts[i%len(accts)], Lt: a.TxLts[i], Utime: a.EndUtime,
				OrigStatus: "active", EndStatus: "active", TotalFees: 2_000_000 + a.TxLts[i]%3_000_000,
				ComputeSuccess: true, ActionSuccess: true, TraceID: traceID}
			if a.McSeqno != nil {
				t.McSeqno = *a.McSeqno
			}
			if prev == nil {
				// Its normalized hash is its own, as on the chain, where a
				// wallet's signed body (seqno, expiry) makes each one unique:
				// a body-less message would share one per account (TEP-467
				// hashes destination and body only) and skew the planner's
				// statistics of hash_norm (docs/QUERY-PLANS.md).
				t.InMsg = &chain.Message{Hash: msgHash("ext", h), HashNorm: msgHash("norm", h),
					Destination: t.Account, CreatedAt: a.StartUtime}
			} else {
				m := chain.Message{Hash: msgHash("int", h), Source: prev.Account, Destination: t.Account,
					Value: 50_000_000 + a.TxLts[i]*7919%1_000_000_000, FwdFee: 400_000, CreatedLt: prev.Lt + 1,
					CreatedAt: a.StartUtime, Bounce: true}
				if a.Type != "TonTransfer" {
					op := uint32(0x178d4519) // a jetton's internal_transfer, the commonest internal op
					m.Opcode = &op
				}
				prev.OutMsgs = append(prev.OutMsgs, m)
				t.InMsg = &m
			}
			if i == len(a.Transactions)-1 && a.Status == chain.StatusFailed {
				t.ComputeSuccess, t.ComputeExitCode = false, 9
			}
			txs = append(txs, t)
			prev = t
		}
		tr := byID[a.TraceID]
		if tr == nil {
			tr = &chain.Trace{ID: traceID, StartLt: a.StartLt, EndLt: a.EndLt, StartUtime: a.StartUtime,
				EndUtime: a.EndUtime, Complete: true}
			byID[a.TraceID] = tr
			traces = append(traces, tr)
		}
		tr.StartLt, tr.EndLt = min(tr.StartLt, a.StartLt), max(tr.EndLt, a.EndLt)
		tr.StartUtime, tr.EndUtime = min(tr.StartUtime, a.StartUtime), max(tr.EndUtime, a.EndUtime)
		tr.Transactions += len(a.Transactions)
	}
	return txs, traces
}
