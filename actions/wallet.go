package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/wallet"
)

// walletV5Signed is the "sign" prefix of a wallet v5 external request.
const walletV5Signed = 0x7369676e

func init() {
	addMatcher(OrderFallback, "wallet request that sent nothing", matchWalletIntent)
}

// matchWalletIntent explains a wallet request that sent nothing (the
// action phase skipped its messages, typically for lack of funds): what the
// owner asked for is read from the signed body and reported as failed.
func matchWalletIntent(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || !m.IsExternalIn() || len(n.tx.OutMsgs) > 0 || len(m.Body) == 0 {
		return false
	}
	intents := walletRequests(m.Body)
	for i, im := range intents {
		if im.Info.SumType != "IntMsgInfo" {
			continue
		}
		to := addr(im.Info.IntMsgInfo.Dest)
		value := uint64(im.Info.IntMsgInfo.Value.Grams)
		body := boc.Cell(im.Body.Value)
		body.ResetCounters()
		bodyBOC, _ := body.ToBoc()
		op, hasOp := uint32(0), false
		if body.BitsAvailableForRead() >= 32 {
			v, _ := body.PickUint(32)
			op, hasOp = uint32(v), true
		}
		probe := &node{op: op, hasOp: hasOp}
		if hasOp && len(bodyBOC) > 0 {
			probe.body, probe.bodyRead = decodeBody(readBody(bodyBOC)), true
		}
		key := opKey(n.tx, i)
		var d *draft
		if jt, ok := bodyAs[abi.JettonTransferMsgBody](probe); ok && op == uint32(abi.JettonTransferMsgOpCode) {
			v := &JettonTransfer{Sender: Address(n.tx.Account), Recipient: Address(addr(jt.Destination)),
				SenderWallet: Address(to), JettonMaster: Address(c.masterOf(to)), Amount: amount(jt.Amount),
				QueryID: nano(jt.QueryId), ForwardAmount: amount(jt.ForwardTonAmount),
				ResponseDestination: Address(addr(jt.ResponseDestination))}
			p := jettonPayloads(bodyBOC)
			v.ForwardPayload, v.CustomPayload = Text(p.forward), Text(p.custom)
			p.setComment(&v.Comment, &v.Encrypted)
			d = newDraft(v, key, n)
		} else if isTonTransferOp(hasOp, op) {
			v := newTonTransfer(n.tx.Account, to, value, bodyBOC, hasOp, op)
			v.ExtraCurrencies = intentCurrencies(im)
			d = newDraft(v, key, n)
		} else {
			// Any other call the wallet was asked for: toncenter reports it
			// as a failed call_contract of the wallet.
			d = newDraft(&SmartContractExec{Sender: Address(n.tx.Account), Contract: Address(to),
				Opcode: Text(opcodeString(op)), Amount: nano(value), ExtraCurrencies: intentCurrencies(im)}, key, n)
		}
		d.ok = false
		c.add(d)
	}
	return n.used
}

// walletRequests decodes the messages a wallet was asked to send: v5
// ("sign" prefix) through tongo, v3/v4 by their layout (signature, wallet
// id, valid_until, seqno, v4's op byte, then a mode byte per message ref).
func walletRequests(body []byte) (out []tlb.Message) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return nil
	}
	cell := cells[0]
	var raws []*boc.Cell
	if prefix, err := cell.PickUint(32); err == nil && prefix == walletV5Signed {
		var v5 wallet.MessageV5
		if err := tlb.Unmarshal(cell, &v5); err != nil {
			return nil
		}
		for _, r := range v5.RawMessages() {
			raws = append(raws, r.Message)
		}
	} else {
		refs := cell.RefsSize()
		rest := cell.BitSize() - 512 - 96
		switch rest {
		case 8*refs + 8: // v4: op byte, 0 = plain send
			if err := cell.Skip(512 + 96); err != nil {
				return nil
			}
			if op, _ := cell.ReadUint(8); op != 0 {
				return nil
			}
		case 8 * refs: // v3
			if err := cell.Skip(512 + 96); err != nil {
				return nil
			}
		default:
			return nil
		}
		for range refs {
			if _, err := cell.ReadUint(8); err != nil {
				return nil
			}
			ref, err := cell.NextRef()
			if err != nil {
				return nil
			}
			raws = append(raws, ref)
		}
	}
	for _, r := range raws {
		var m tlb.Message
		if err := tlb.Unmarshal(r, &m); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// intentCurrencies lists the extra currencies an intended message carries.
func intentCurrencies(m tlb.Message) []ExtraCurrency {
	if m.Info.SumType != "IntMsgInfo" {
		return nil
	}
	other := m.Info.IntMsgInfo.Value.Other.Dict
	var ec map[uint32]string
	for _, id := range other.Keys() {
		v, _ := other.Get(id)
		if ec == nil {
			ec = map[uint32]string{}
		}
		amount := big.Int(v)
		ec[uint32(id)] = amount.String()
	}
	return extraCurrencies(ec)
}
