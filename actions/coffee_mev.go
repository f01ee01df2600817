package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// swap.coffee's MEV protector holds a user's funds (TON with
// mev_protect_hold_funds 0x6bc79e7e, or jettons whose transfer carries that
// op as forward payload) until the swap it makes for them; funds that come
// back with mev_protect_failed_swap (0xee51ce51, as the message or as a
// jetton transfer's forward payload) go back to the recipient it names.

// opCoffeeServiceFee is service_fee#c0ffeea0, the swap.coffee fee a wallet
// pays along with a protected swap (toncenter's messages/coffee.py).
const opCoffeeServiceFee abi.MsgOpCode = 0xc0ffeea0

// CoffeeMevProtectHoldFunds: funds handed to swap.coffee's MEV protector
// for a protected swap.
type CoffeeMevProtectHoldFunds struct {
	Sender              Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who handed the funds over"`
	SenderWallet        Address `json:"sender_wallet,omitempty" role:"source" tc:"source_jetton_wallet" doc:"the sender's jetton wallet; absent for TON"`
	MevContract         Address `json:"mev_contract,omitempty" role:"contract" tc:"mev_contract" doc:"the MEV protector contract that holds the funds"`
	MevContractWallet   Address `json:"mev_contract_wallet,omitempty" role:"destination" tc:"mev_contract_jetton_wallet" doc:"the protector's jetton wallet; absent for TON"`
	Asset               Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the asset held (jetton master); absent for TON or when unknown"`
	Amount              BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons sent (TON) or jettons moved"`
	QueryID             BigInt  `json:"query_id,omitempty" doc:"query id of the request (TON) or of the jetton transfer"`
	ServiceFee          BigInt  `json:"service_fee,omitempty" doc:"nanotons the same sender paid as swap.coffee's service fee (service_fee 0xc0ffeea0) in the same message batch"`
	ServiceFeeRecipient Address `json:"service_fee_recipient,omitempty" doc:"where the service fee went"`
}

// CoffeeMevProtectFailedSwap: funds of a protected swap that did not
// happen, back at the MEV protector, which returns them to the recipient.
type CoffeeMevProtectFailedSwap struct {
	Recipient         Address `json:"recipient,omitempty" role:"recipient" tc:"destination" doc:"who the protector is to return the funds to"`
	MevContract       Address `json:"mev_contract,omitempty" role:"contract" doc:"the MEV protector contract"`
	MevContractWallet Address `json:"mev_contract_wallet,omitempty" role:"destination" doc:"the protector's jetton wallet; absent for TON"`
	Sender            Address `json:"sender,omitempty" role:"sender" doc:"who sent the message (TON) or the jettons back to the protector"`
	SenderWallet      Address `json:"sender_wallet,omitempty" role:"source" doc:"the sender's jetton wallet; absent for TON"`
	Asset             Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the asset (jetton master); absent for TON or when unknown"`
	Amount            BigInt  `json:"amount,omitempty" doc:"nanotons the message carried (TON) or jettons moved"`
	QueryID           BigInt  `json:"query_id,omitempty" doc:"query id of mev_protect_failed_swap"`
}

func init() {
	declare(
		Type{Value: CoffeeMevProtectHoldFunds{}, Title: "MEV protection hold", Describe: describeAs(func(v *CoffeeMevProtectHoldFunds, w *Words) string {
			return "Held " + w.Asset(v.Asset, v.Amount) + " in swap.coffee MEV protection"
		}),
			Toncenter: "coffee_mev_protect_hold_funds", Protocols: "swap.coffee MEV protector",
			Doc:    "mev_protect_hold_funds (0x6bc79e7e) with TON at the protector, or a jetton transfer to it with that op as forward payload; a service_fee (0xc0ffeea0) the same transaction sent belongs to it.",
			Failed: "the protector rejected the TON, or the jettons did not move"},
		Type{Value: CoffeeMevProtectFailedSwap{}, Title: "MEV protection refund", Describe: describeAs(func(v *CoffeeMevProtectFailedSwap, w *Words) string {
			return "Returned " + w.Asset(v.Asset, v.Amount) + " from swap.coffee MEV protection to " + w.Account(v.Recipient)
		}),
			Toncenter: "coffee_mev_protect_failed_swap", Protocols: "swap.coffee MEV protector",
			Doc:     "mev_protect_failed_swap (0xee51ce51) at the protector, as a TON message or as the forward payload of a jetton transfer to it; the protector's return of the funds is an action of its own, as toncenter reports it. A refund that a STON.fi, DeDust or Tonco pool's answer pays back to the protector is the failed JettonSwap's outgoing leg instead (toncenter's swap matchers take it first).",
			Failed:  "the protector rejected the message, or the jettons did not move",
			Differs: "toncenter's API has no details for this type; its raw action has destination (= recipient) and asset."},
	)
	// The failed swap's funds come back from a DEX: claim them before the
	// swap matcher could take them for its refund leg, unless that leg is
	// the refund of a swap the DEX answered (dexSwapRefund).
	addMatcher(OrderProtocol-10, "CoffeeMevProtectFailedSwap", matchCoffeeMevFailedSwap)
	addMatcher(OrderProtocol+32, "CoffeeMevProtectHoldFunds", matchCoffeeMevHoldFunds)
}

func matchCoffeeMevHoldFunds(c *classifier, n *node) bool {
	var v *CoffeeMevProtectHoldFunds
	var d *draft
	if n.is(abi.CoffeeMevProtectHoldFundsMsgOpCode) {
		v = &CoffeeMevProtectHoldFunds{Sender: Address(n.in().Source), MevContract: Address(n.tx.Account),
			Amount: nano(n.in().Value)}
		if b, ok := bodyAs[abi.CoffeeMevProtectHoldFundsMsgBody](n); ok {
			v.QueryID = nano(b.QueryId)
		}
		d = newDraft(v, n.in().Hash, n)
		d.ok = n.ok()
	} else {
		if forwardOp(n) != uint32(abi.CoffeeMevProtectHoldFundsMsgOpCode) {
			return false
		}
		l, ok := c.followTransfer(n)
		if !ok {
			return false
		}
		v = &CoffeeMevProtectHoldFunds{Sender: Address(l.owner), SenderWallet: Address(l.sourceWallet),
			MevContract: Address(l.recipient), MevContractWallet: Address(l.destWallet),
			Asset: Address(l.master), Amount: l.amount, QueryID: nano(l.body.QueryId)}
		d = newDraft(v, n.in().Hash, l.nodes()...)
		d.ok = l.ok
	}
	d.withInitiator(n)
	// The service fee sent by the same transaction (toncenter merges the
	// parent's service_fee call into the action).
	if p := n.parent; p != nil {
		if fee := p.child(opCoffeeServiceFee); fee != nil {
			v.ServiceFee, v.ServiceFeeRecipient = nano(fee.in().Value), Address(fee.tx.Account)
			d.nodes = append(d.nodes, fee)
		}
	}
	c.add(d)
	return true
}

func matchCoffeeMevFailedSwap(c *classifier, n *node) bool {
	if n.is(abi.CoffeeMevProtectFailedSwapMsgOpCode) {
		b, ok := bodyAs[abi.CoffeeMevProtectFailedSwapMsgBody](n)
		if !ok {
			return false
		}
		v := &CoffeeMevProtectFailedSwap{Recipient: Address(addr(b.Recipient)), MevContract: Address(n.tx.Account),
			Sender: Address(n.in().Source), Amount: nano(n.in().Value), QueryID: nano(b.QueryId)}
		d := newDraft(v, n.in().Hash, n).withInitiator(n)
		d.ok = n.ok()
		c.add(d)
		return true
	}
	var p struct {
		Op        uint32
		QueryID   uint64
		Recipient tlb.MsgAddress
	}
	if forwardOp(n) != uint32(abi.CoffeeMevProtectFailedSwapMsgOpCode) || dexSwapRefund(n) {
		return false
	}
	if !unmarshalCell(forwardPayload(n), &p) {
		return false
	}
	l, ok := c.followTransfer(n)
	if !ok {
		return false
	}
	v := &CoffeeMevProtectFailedSwap{Recipient: Address(addr(p.Recipient)), MevContract: Address(l.recipient),
		MevContractWallet: Address(l.destWallet), Sender: Address(l.owner), SenderWallet: Address(l.sourceWallet),
		Asset: Address(l.master), Amount: l.amount, QueryID: nano(p.QueryID)}
	d := newDraft(v, n.in().Hash, l.nodes()...).withInitiator(n)
	d.ok = l.ok
	c.add(d)
	return true
}

// dexSwapRefund tells a refund a STON.fi, DeDust or Tonco pool's answer to
// a swap pays back (the transfer request n follows the DEX's payment
// request, pay_to or payout_from_pool, below the pool's swap request): it
// is the refund leg of a failed JettonSwap, which toncenter's swap
// matchers take before its MEV matcher could. Only a Coffee swap, which
// fails without a swap, leaves its refund to this action.
func dexSwapRefund(n *node) bool {
	p := n.parent
	if p == nil || !p.is(abi.StonfiPaymentRequestMsgOpCode, abi.StonfiPayToV2MsgOpCode, abi.PayToMsgOpCode, abi.DedustPayoutFromPoolMsgOpCode) {
		return false
	}
	for a := p.parent; a != nil; a = a.parent {
		switch poolDex(a) {
		case "stonfi", "stonfi_v2", "tonco", "dedust":
			return true
		}
	}
	return false
}

// forwardOp is the op code a jetton transfer request's forward payload
// starts with, 0 when it has none.
func forwardOp(n *node) uint32 {
	c := forwardPayload(n)
	if c == nil {
		return 0
	}
	op, err := c.PickUint(32)
	if err != nil {
		return 0
	}
	return uint32(op)
}
