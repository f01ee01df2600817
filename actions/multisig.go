package actions

import (
	"encoding/base64"
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Multisig v2 (ton-blockchain/multisig-contract-v2, contracts/multisig.tlb):
// a signer or proposer sends new_order to the multisig, which deploys an
// order contract with init; signers approve the order (approve, or the text
// comment "approve"), which answers approve_accepted or approve_rejected;
// the approval that reaches the threshold makes the order send execute to
// the multisig, which then sends the order's messages.

// MultisigCreateOrder: a signer or proposer had a multisig create an order.
type MultisigCreateOrder struct {
	Creator           Address   `json:"creator,omitempty" role:"sender" tc:"source" doc:"who asked for the order (a signer or a proposer)"`
	Multisig          Address   `json:"multisig,omitempty" role:"contract" tc:"destination" doc:"the multisig wallet"`
	Order             Address   `json:"order,omitempty" role:"destination" tc:"destination_order" doc:"the order contract the multisig deployed"`
	QueryID           BigInt    `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	OrderSeqno        BigInt    `json:"order_seqno,omitempty" tc:"order_seqno" doc:"the order seqno the request asked for (2^256-1: the multisig's next one)"`
	IsCreatedBySigner *bool     `json:"is_created_by_signer,omitempty" tc:"is_created_by_signer" doc:"true when the creator is a signer, false for a proposer"`
	IsSignedByCreator *bool     `json:"is_signed_by_creator,omitempty" tc:"is_signed_by_creator" doc:"true when the order counted the creator's approval on creation"`
	CreatorIndex      *int64    `json:"creator_index,omitempty" tc:"creator_index" doc:"the creator's index among the signers (or the proposers)"`
	ExpirationDate    *int64    `json:"expiration_date,omitempty" tc:"expiration_date" doc:"unix time after which the order can no longer execute"`
	OrderBoc          Text      `json:"order_boc,omitempty" tc:"order_boc" doc:"the order (its actions) as a base64 BOC"`
	Threshold         *int64    `json:"threshold,omitempty" doc:"approvals the order needs, as the multisig told it"`
	Signers           []Address `json:"signers,omitempty" doc:"the signers, as the multisig told the order"`
}

// MultisigApprove: a signer approved a multisig order.
type MultisigApprove struct {
	Signer      Address   `json:"signer,omitempty" role:"sender" tc:"source" doc:"the approving signer"`
	Order       Address   `json:"order,omitempty" role:"contract" tc:"destination" doc:"the order contract"`
	SignerIndex *int64    `json:"signer_index,omitempty" tc:"signer_index" doc:"the signer's index (absent for an approval by comment, which does not name it)"`
	ExitCode    *int64    `json:"exit_code,omitempty" tc:"exit_code" doc:"why the order rejected the approval (0 when accepted)"`
	QueryID     BigInt    `json:"query_id,omitempty" doc:"query id of the approval (of an approve message)"`
	Signers     []Address `json:"signers,omitempty" doc:"the order's signers, from the order's init in the trace or from what the indexer knows of the order (toncenter lists them among the accounts)"`
}

// MultisigExecute: an approved order had the multisig carry out its actions.
type MultisigExecute struct {
	Order          Address   `json:"order,omitempty" role:"sender" tc:"source" doc:"the order contract that asked"`
	Multisig       Address   `json:"multisig,omitempty" role:"contract" tc:"destination" doc:"the multisig wallet"`
	QueryID        BigInt    `json:"query_id,omitempty" tc:"query_id" doc:"query id of the execute message"`
	OrderSeqno     BigInt    `json:"order_seqno,omitempty" tc:"order_seqno" doc:"the order's seqno"`
	ExpirationDate *int64    `json:"expiration_date,omitempty" tc:"expiration_date" doc:"unix time the order expires"`
	ApprovalsNum   *int64    `json:"approvals_num,omitempty" tc:"approvals_num" doc:"approvals the order collected"`
	SignersHash    Text      `json:"signers_hash,omitempty" tc:"signers_hash" doc:"hash of the signers list the order was approved by, base64"`
	OrderBoc       Text      `json:"order_boc,omitempty" tc:"order_boc" doc:"the order (its actions) as a base64 BOC"`
	Signers        []Address `json:"signers,omitempty" doc:"the order's signers, from the order's init in the trace or from what the indexer knows of the order (toncenter lists them among the accounts)"`
}

func init() {
	declare(
		Type{Value: MultisigCreateOrder{}, Title: "Multisig order", Describe: describeAs(func(v *MultisigCreateOrder, w *Words) string {
			return "Created order" + w.seqno(v.OrderSeqno) + " on multisig " + w.Account(v.Multisig)
		}),
			Toncenter: "multisig_create_order", Protocols: "multisig v2",
			Doc:     "new_order (0xf718510f) at the multisig, which deploys the order contract with init (0x9c73fba2).",
			Failed:  "the multisig refused the request, or the order contract rejected its init (expired)",
			Differs: "toncenter needs the order's indexed state and never reports the action failed; we read the multisig's init message, report a refused request as failed (toncenter: a call_contract) and take the signers from the init message"},
		Type{Value: MultisigApprove{}, Title: "Multisig approval", Describe: describeAs(func(v *MultisigApprove, w *Words) string {
			return "Approved multisig order " + w.Account(v.Order)
		}),
			Toncenter: "multisig_approve", Protocols: "multisig v2",
			Doc:     "approve (0xa762230f) or the text comment \"approve\" from a signer to the order, answered with approve_accepted (0x82609bf6) or approve_rejected (0xafaf283e).",
			Failed:  "the order rejected the approval (already approved or executed), or failed on an approve message",
			Differs: "signer_index is absent for an approval by comment (toncenter writes -1); toncenter needs the order's indexed state and lists its signers among the accounts, which the trace does not carry"},
		Type{Value: MultisigExecute{}, Title: "Multisig execution", Describe: describeAs(func(v *MultisigExecute, w *Words) string {
			return "Executed order" + w.seqno(v.OrderSeqno) + " of multisig " + w.Account(v.Multisig)
		}),
			Toncenter: "multisig_execute", Protocols: "multisig v2",
			Doc:    "execute (0x75097f5d) from the order to the multisig; the messages the multisig then sends are actions of their own.",
			Failed: "the multisig refused to execute (not its order, outdated signers, expired)"},
	)
	addMatcher(OrderProtocol+50, "MultisigCreateOrder", matchMultisigCreateOrder)
	addMatcher(OrderProtocol+51, "MultisigApprove", matchMultisigApprove)
	addMatcher(OrderProtocol+52, "MultisigExecute", matchMultisigExecute)
}

// multisigNewOrder: new_order#f718510f query_id:uint64 order_seqno:uint256
// signer:(## 1) index:uint8 expiration_date:uint48 order:^Order.
type multisigNewOrder struct {
	Op         uint32
	QueryID    uint64
	OrderSeqno tlb.Uint256
	Signer     bool
	Index      uint8
	Expiration tlb.Uint48
	Order      tlb.Ref[boc.Cell]
}

// multisigInit: init#9c73fba2 query_id:uint64 threshold:uint8
// signers:^(Hashmap 8 MsgAddressInt) expiration_date:uint48 order:^Order
// approve_on_init:(## 1) signer_index:approve_on_init?uint8.
type multisigInit struct {
	Op          uint32
	QueryID     uint64
	Threshold   uint8
	Signers     tlb.Ref[tlb.Hashmap[tlb.Uint8, tlb.MsgAddress]]
	Expiration  tlb.Uint48
	Order       tlb.Ref[boc.Cell]
	SignerIndex tlb.Maybe[tlb.Uint8]
}

// multisigExecuteBody: execute#75097f5d query_id:uint64 order_seqno:uint256
// expiration_date:uint48 approvals_num:uint8 signers_hash:bits256 order:^Order.
type multisigExecuteBody struct {
	Op           uint32
	QueryID      uint64
	OrderSeqno   tlb.Uint256
	Expiration   tlb.Uint48
	ApprovalsNum uint8
	SignersHash  tlb.Bits256
	Order        tlb.Ref[boc.Cell]
}

// matchMultisigCreateOrder: n is the multisig receiving new_order.
func matchMultisigCreateOrder(c *classifier, n *node) bool {
	if !n.is(abi.MultisigNewOrderMsgOpCode) {
		return false
	}
	var req multisigNewOrder
	if !n.decode(&req) {
		return false
	}
	v := &MultisigCreateOrder{Creator: Address(n.in().Source), Multisig: Address(n.tx.Account),
		QueryID: nano(req.QueryID), OrderSeqno: uint256String(req.OrderSeqno),
		IsCreatedBySigner: flag(req.Signer), CreatorIndex: int64Of(int64(req.Index)),
		ExpirationDate: int64Of(int64(req.Expiration)), OrderBoc: Text(cellBase64(&req.Order.Value))}
	init := n.child(abi.MultisigOrderInitMsgOpCode)
	var reply *node
	if init != nil {
		v.Order = Address(init.tx.Account)
		var in multisigInit
		if init.decode(&in) {
			v.IsSignedByCreator = flag(in.SignerIndex.Exists)
			v.Threshold = int64Of(int64(in.Threshold))
			v.Signers = in.signers()
			v.OrderBoc = Text(cellBase64(&in.Order.Value))
		}
		// An order created twice counts the second init as an approval.
		reply = init.child(abi.MultisigApproveAcceptedMsgOpCode, abi.MultisigApproveRejectedMsgOpCode)
	}
	d := newDraft(v, n.in().Hash, n, init, reply, n.bouncedChild()).withInitiator(n)
	d.ok = !n.tx.Aborted && init != nil && !init.tx.Aborted
	c.add(d)
	return true
}

// matchMultisigApprove: n is the order receiving approve, or the comment
// "approve", and answering it.
func matchMultisigApprove(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced {
		return false
	}
	v := &MultisigApprove{Signer: Address(m.Source), Order: Address(n.tx.Account)}
	byOp := n.is(abi.MultisigApproveMsgOpCode)
	if byOp {
		var body struct {
			Op          uint32
			QueryID     uint64
			SignerIndex uint8
		}
		if !decodePrefix(m.Body, &body) {
			return false
		}
		v.SignerIndex, v.QueryID = int64Of(int64(body.SignerIndex)), nano(body.QueryID)
	} else if !n.is(abi.TextCommentMsgOpCode) {
		return false
	} else if text, ok := commentOf(m.Body); !ok || text != "approve" {
		return false
	}
	accepted := n.child(abi.MultisigApproveAcceptedMsgOpCode)
	rejected := n.child(abi.MultisigApproveRejectedMsgOpCode)
	if accepted == nil && rejected == nil && !byOp {
		return false // a comment to something that is not an order
	}
	var reply *node
	switch {
	case accepted != nil:
		reply, v.ExitCode = accepted, int64Of(0)
	case rejected != nil:
		reply = rejected
		var body struct {
			Op       uint32
			QueryID  uint64
			ExitCode uint32
		}
		if rejected.decode(&body) {
			v.ExitCode = int64Of(int64(body.ExitCode))
		}
	}
	v.Signers = c.orderSigners(n.tx.Account)
	d := newDraft(v, m.Hash, n, reply, n.bouncedChild()).withInitiator(n)
	d.ok = accepted != nil
	c.add(d)
	return true
}

// matchMultisigExecute: n is the multisig receiving execute from an order.
func matchMultisigExecute(c *classifier, n *node) bool {
	if !n.is(abi.MultisigExecuteMsgOpCode) {
		return false
	}
	var body multisigExecuteBody
	if !n.decode(&body) {
		return false
	}
	d := newDraft(&MultisigExecute{Order: Address(n.in().Source), Multisig: Address(n.tx.Account),
		QueryID: nano(body.QueryID), OrderSeqno: uint256String(body.OrderSeqno),
		ExpirationDate: int64Of(int64(body.Expiration)), ApprovalsNum: int64Of(int64(body.ApprovalsNum)),
		SignersHash: Text(base64.StdEncoding.EncodeToString(body.SignersHash[:])),
		OrderBoc:    Text(cellBase64(&body.Order.Value)), Signers: c.orderSigners(n.in().Source)}, n.in().Hash, n)
	d.ok = !n.tx.Aborted && n.tx.Success()
	c.add(d)
	return true
}

// signers lists the signers an init message names, by index.
func (in *multisigInit) signers() []Address {
	var out []Address
	for _, a := range in.Signers.Value.Values() {
		if s := addr(a); s != "" {
			out = append(out, Address(s))
		}
	}
	return out
}

// orderSigners reads the signers of an order from its init message, when
// the trace carries it, else from what the indexer knows of the order.
func (c *classifier) orderSigners(order string) []Address {
	for _, x := range c.nodes {
		if x.tx.Account != order || !x.is(abi.MultisigOrderInitMsgOpCode) {
			continue
		}
		var in multisigInit
		if x.decode(&in) {
			return in.signers()
		}
	}
	var out []Address
	for _, s := range c.known[order].Signers {
		out = append(out, Address(s))
	}
	return out
}

func uint256String(v tlb.Uint256) BigInt {
	b := big.Int(v)
	return BigInt(b.String())
}
