package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Swaps on the DEXes tonapi decodes and toncenter does not: Bidask, MoonCX
// and Megaton. Their messages are tongo's abi schemas (bidask.xml,
// mooncx.xml, megaton-fi.xml); the flows are the ones tonapi's bath
// package matches (a fact about the protocols, not its code).
//
//   - Bidask: the user sends TON to the pool with bidask_swap (v1
//     0xf2ef6c1b, v2 0x87d36990) or jettons whose payload is bidask_swap;
//     the pool asks a range with internal_swap (0x66210c65, v2 0x87d36990),
//     ranges continue among themselves (continue_swap), and the last one
//     answers the pool with swap_success (0x520e4831, v2 0xd3a25890) or,
//     when it cannot, swap_fallback (0x1bba3896); the pool then pays jettons
//     out, or TON with native_transfer_notification (0x6edd65f0).
//   - MoonCX: the user sends TON to the pool with moon_swap (0xb37a900b) or
//     jettons whose payload is moon_swap; the pool pays jettons out, or TON
//     with moon_swap_succeed (0xcb7f38d6), or refunds with moon_swap_failed
//     (0xc47c1f57).
//   - Megaton: the user sends jettons to the router, the router sends them
//     to the pool (exchange), the exchange logs the swap (an external
//     message swap#7362d09c) and sends the other jetton back to the router,
//     which sends it to the user.
func init() {
	dexRules["bidask"] = bidaskRules
	dexRules["mooncx"] = mooncxRules
	addMatcher(OrderProtocol+1, "JettonSwapMegaton", matchMegatonSwap)
}

// isBidaskRange: n's in-message is a Bidask internal_swap and the contract
// answered as a range does (continue_swap to the next range, or
// swap_success / swap_fallback to the pool).
func isBidaskRange(n *node) bool {
	for _, c := range n.children {
		if c.is(abi.BidaskInternalContinueSwapMsgOpCode, abi.BidaskInternalContinueSwapV2MsgOpCode,
			abi.BidaskSwapSuccessMsgOpCode, abi.BidaskSwapSuccessV2MsgOpCode, abi.BidaskSwapFallbackMsgOpCode) {
			return true
		}
	}
	return false
}

// notifyHead is a transfer_notification: query_id amount sender
// forward_payload:(Either Cell ^Cell).
type notifyHead struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
	Sender  tlb.MsgAddress
	Forward tlb.EitherRef[tlb.Any]
}

// notifyPayloadOp is the op code of a transfer notification's forward
// payload, 0 when it has none.
func notifyPayloadOp(n *node) uint32 {
	var h notifyHead
	if !n.decode(&h) {
		return 0
	}
	var op struct{ Op uint32 }
	c := h.Forward.Value
	if !unmarshalCell((*boc.Cell)(&c), &op) {
		return 0
	}
	return op.Op
}

// bidaskRules: a swap_fallback anywhere in the route is a swap that did
// not happen; the pool is the contract that asked the range.
func bidaskRules(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts {
	f := swapFacts{ok: true, pool: Address(r.hops[0].in().Source)}
	var walk func(n *node)
	walk = func(n *node) {
		for _, ch := range n.children {
			if ch.is(abi.BidaskSwapFallbackMsgOpCode) {
				f.ok = false
			}
			if ch.is(abi.BidaskInternalContinueSwapMsgOpCode, abi.BidaskInternalContinueSwapV2MsgOpCode) {
				walk(ch)
			}
		}
	}
	walk(r.hops[0])
	return f
}

// moonSwapParams is MoonCX's swap_params: min_out:(VarUInteger 16) ...
type moonSwapParams struct {
	MinOut tlb.VarUInteger16
}

// mooncxRules: moon_swap_failed is a refund; the request's min_out is the
// minimum out. TON paid out with moon_swap_succeed is the message's value.
func mooncxRules(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts {
	f := swapFacts{ok: true}
	p := r.hops[0]
	if childWith(p, abi.MoonSwapFailedMsgOpCode) != nil {
		f.ok = false
	}
	if b, ok := bodyAs[abi.MoonSwapMsgBody](p); ok && p.is(abi.MoonSwapMsgOpCode) {
		f.minOut = amount(b.SwapParams.MinOut)
	} else {
		var h notifyHead
		var pl struct {
			Op     uint32
			Params moonSwapParams
		}
		if p.decode(&h) {
			cell := h.Forward.Value
			if unmarshalCell((*boc.Cell)(&cell), &pl) && pl.Op == uint32(abi.MoonSwapMsgOpCode) {
				f.minOut = amount(pl.Params.MinOut)
			}
		}
	}
	return f
}

// megatonSwapLog is the exchange's log of a swap: swap#7362d09c
// account_addr:MsgAddressInt in_token_addr:MsgAddressInt in_amount:Coins
// ^[out_token_addr:MsgAddressInt out_amount:Coins].
type megatonSwapLog struct {
	Op      uint32
	Account tlb.MsgAddress
	InToken tlb.MsgAddress
	In      tlb.VarUInteger16
	Out     struct {
		OutToken tlb.MsgAddress
		Out      tlb.VarUInteger16
	} `tlb:"^"`
}

// megatonLog reads the swap log n's transaction wrote, if any.
func megatonLog(n *node) (megatonSwapLog, bool) {
	for _, b := range extOuts(n, abi.MegatonSwapExtOutMsgOpCode) {
		var l megatonSwapLog
		if decodePrefix(b, &l) && addr(l.Account) != "" {
			return l, true
		}
	}
	return megatonSwapLog{}, false
}

// matchMegatonSwap anchors at the exchange taking the router's jettons
// (a transfer notification) and logging the swap.
func matchMegatonSwap(c *classifier, n *node) bool {
	if !n.is(abi.JettonNotifyMsgOpCode) {
		return false
	}
	if _, ok := megatonLog(n); !ok {
		return false
	}
	// Up: the router's leg to the exchange, then the user's leg to the router.
	var hop, user *jettonLeg
	for a := n.parent; a != nil && user == nil; a = a.parent {
		if a.used {
			return false
		}
		if l, ok := c.followTransfer(a); ok {
			if hop == nil {
				hop = l
			} else {
				user = l
			}
		}
	}
	if hop == nil || user == nil || user.notify == nil {
		return false
	}
	router := hop.owner
	in := swapSide{leg: user, owner: user.owner, amount: user.amount, jetton: user.master, dexWallet: user.destWallet, nodes: user.nodes(), xfer: c.legTransfer(user)}
	r := &swapRoute{dex: "megaton", in: in, hops: []*node{n}}
	d := newDraft(nil, n.in().Hash, n)
	d.nodes = append(d.nodes, user.nodes()...)
	for a := n.parent; a != nil && a != user.notify; a = a.parent {
		d.nodes = append(d.nodes, a)
	}
	// Down: the exchange's leg back to the router, then the router's leg
	// to the user (whoever the router pays that is not the exchange).
	var back, out *jettonLeg
	for _, ch := range n.children {
		if l, ok := c.followTransfer(ch); ok && !ch.used && l.recipient == router {
			back = l
			break
		}
	}
	if back != nil && back.notify != nil {
		d.nodes = append(d.nodes, back.nodes()...)
		d.nodes = append(d.nodes, back.notify)
		for _, ch := range back.notify.children {
			if l, ok := c.followTransfer(ch); ok && !ch.used && l.recipient != n.tx.Account {
				out = l
				break
			}
		}
	}
	if out != nil {
		r.out, r.found = c.outLeg(out), true
		d.nodes = append(d.nodes, out.nodes()...)
	}
	d.withInitiator(user.send)
	v, _ := c.swapValue(r)
	d.value = v
	refund := in.master() != "" && in.master() == r.out.master()
	d.ok = n.ok() && user.ok && hop.ok && back != nil && back.ok && out != nil && out.ok && !refund
	c.add(d)
	return true
}
