package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// jettonBurnHead: burn#595f07bc query_id:uint64 amount:(VarUInteger 16)
// response_destination:MsgAddress custom_payload:(Maybe ^Cell).
type jettonBurnHead struct {
	Op       uint32
	QueryID  uint64
	Amount   tlb.VarUInteger16
	Response tlb.MsgAddress
	Custom   tlb.Maybe[tlb.Ref[boc.Cell]]
}

// TokenMoves are the token moves of txs (chain.TokenMove): every
// transaction that was not aborted and whose incoming message is a
// transfer or burn request with a body of the standard layout, whatever
// became of the messages it sent (toncenter lists a transfer whose
// receiving wallet bounced it too). The store writes them beside the
// transactions, so import, follow and reclassify fill them alike.
func TokenMoves(txs []*chain.Transaction) []chain.TokenMove {
	var out []chain.TokenMove
	for _, tx := range txs {
		if m, ok := tokenMove(tx); ok {
			out = append(out, m)
		}
	}
	return out
}

func tokenMove(tx *chain.Transaction) (chain.TokenMove, bool) {
	in := tx.InMsg
	if tx.Aborted || in == nil || in.Opcode == nil || in.IsExternalIn() || in.Bounced {
		return chain.TokenMove{}, false
	}
	m := chain.TokenMove{TxHash: tx.Hash.Base64(), TxLt: tx.Lt, TxUtime: tx.Utime, TraceID: tx.TraceID.Base64(),
		Source: in.Source, Contract: tx.Account}
	root := readBody(in.Body)
	switch abi.MsgOpCode(*in.Opcode) {
	case abi.JettonTransferMsgOpCode:
		var h jettonTransferHead
		if !unmarshalCell(root, &h) {
			return m, false
		}
		m.Kind, m.QueryID, m.Amount, m.Destination = chain.MoveJettonTransfer, string(nano(h.QueryID)), string(amount(h.Amount)), addr(h.Dest)
		m.ResponseDestination, m.ForwardAmount = addr(h.Response), string(amount(h.ForwardAmount))
		p := jettonPayloads(in.Body)
		m.CustomPayload, m.ForwardPayload = p.custom, p.forward
	case abi.JettonBurnMsgOpCode:
		var h jettonBurnHead
		if !unmarshalCell(root, &h) {
			return m, false
		}
		m.Kind, m.QueryID, m.Amount, m.ResponseDestination = chain.MoveJettonBurn, string(nano(h.QueryID)), string(amount(h.Amount)), addr(h.Response)
		if h.Custom.Exists {
			m.CustomPayload = cellBase64(&h.Custom.Value.Value)
		}
	case abi.NftTransferMsgOpCode:
		var h nftTransferHead
		if !unmarshalCell(root, &h) {
			return m, false
		}
		m.Kind, m.QueryID, m.Destination, m.ResponseDestination = chain.MoveNftTransfer, string(nano(h.QueryID)), addr(h.NewOwner), addr(h.Response)
		m.ForwardAmount = string(amount(h.ForwardAmount))
		p := nftPayloads(in.Body)
		m.CustomPayload, m.ForwardPayload = p.custom, p.forward
	default:
		return m, false
	}
	return m, true
}
