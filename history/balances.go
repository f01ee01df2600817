package history

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

func newChanges() *chain.BalanceChanges {
	return &chain.BalanceChanges{Ton: map[string]int64{}, Fees: map[string]int64{}, Jettons: map[string]map[string]*big.Int{}}
}

// delta is one transaction's part, before fees are netted.
type delta struct {
	value, fees map[string]int64
	jettons     map[string]map[string]*big.Int
}

func (d *delta) jetton(owner, master string, amount *big.Int) {
	if d.jettons[owner] == nil {
		d.jettons[owner] = map[string]*big.Int{}
	}
	if d.jettons[owner][master] == nil {
		d.jettons[owner][master] = new(big.Int)
	}
	d.jettons[owner][master].Add(d.jettons[owner][master], amount)
}

// opJettonTransfer is a jetton transfer request, owner to its wallet.
const opJettonTransfer = uint32(abi.JettonTransferMsgOpCode)

// TraceBalanceChanges computes the changes of the transactions txs of
// one trace as toncenter does: each transaction's account pays its total
// fees, the sender of each internal message its forward fee (when the
// sending transaction is in the trace) and the value moves from sender to
// receiver; an external message out costs its forward fee. A jetton
// transfer request moves its amount from the requesting owner to the
// owner it names, under the master of the wallet it went to (masters:
// wallet -> master, what the indexer or the registry knows; a wallet of
// unknown master moves nothing). Only the transactions of only (nil:
// all) count: an action's.
func TraceBalanceChanges(txs []*chain.Transaction, masters map[string]string, only map[chain.Hash]bool) *chain.BalanceChanges {
	sent := map[chain.Hash]bool{}
	for _, tx := range txs {
		for i := range tx.OutMsgs {
			sent[tx.OutMsgs[i].Hash] = true
		}
	}
	d := &delta{value: map[string]int64{}, fees: map[string]int64{}, jettons: map[string]map[string]*big.Int{}}
	for _, tx := range txs {
		if only != nil && !only[tx.Hash] {
			continue
		}
		m := tx.InMsg
		if m == nil { // tick-tock: toncenter counts nothing of it
			continue
		}
		d.fees[tx.Account] += int64(tx.TotalFees)
		if !m.IsExternalIn() {
			if sent[m.Hash] {
				d.fees[m.Source] += int64(m.FwdFee)
			}
			d.value[m.Source] -= int64(m.Value)
			d.value[tx.Account] += int64(m.Value)
		}
		for i := range tx.OutMsgs {
			if tx.OutMsgs[i].Destination == "" {
				d.fees[tx.Account] += int64(tx.OutMsgs[i].FwdFee)
			}
		}
		if m.Opcode != nil && *m.Opcode == opJettonTransfer && !m.IsExternalIn() {
			if master := masters[tx.Account]; master != "" {
				if to, amount, ok := jettonTransfer(m.Body); ok {
					d.jetton(m.Source, master, new(big.Int).Neg(amount))
					d.jetton(to, master, amount)
				}
			}
		}
	}
	out := newChanges()
	for a, v := range d.value {
		out.Ton[a] += v
	}
	for a, f := range d.fees {
		out.Ton[a] -= f
		out.Fees[a] = f
	}
	out.Jettons = d.jettons
	return out
}

// jettonTransfer reads a transfer request: the owner it names and the
// amount.
func jettonTransfer(body []byte) (string, *big.Int, bool) {
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return "", nil, false
	}
	if _, err := cells[0].ReadUint(32); err != nil {
		return "", nil, false
	}
	var t abi.JettonTransferMsgBody
	if tlb.Unmarshal(cells[0], &t) != nil {
		return "", nil, false
	}
	to, err := ton.AccountIDFromTlb(t.Destination)
	if err != nil || to == nil {
		return "", nil, false
	}
	amount := big.Int(t.Amount)
	return chain.RawAddress(*to), &amount, true
}
