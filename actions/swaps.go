package actions

import (
	"github.com/tonkeeper/tongo/abi"
)

// swapSide is the asset moving into or out of the DEX: a jetton leg, or TON.
type swapSide struct {
	leg    *jettonLeg // nil for TON
	owner  string     // who sent (in) or received (out)
	amount BigInt
	jetton string // master of the asset; pTON's master for TON wrapped by STON.fi
	// dexWallet is the DEX's jetton wallet the asset went into (in) or
	// came out of (out); "" for TON.
	dexWallet string
	nodes     []*node
}

func (s swapSide) master() string { return s.jetton }

// JettonSwap: an asset exchanged for another on a DEX.
type JettonSwap struct {
	Dex             string  `json:"dex,omitempty" tc:"dex" doc:"stonfi, stonfi_v2, dedust, coffee or tonco"`
	Sender          Address `json:"sender,omitempty" role:"sender" tc:"sender" doc:"who sent the asset in"`
	Recipient       Address `json:"recipient,omitempty" role:"recipient" tc:"dex_outgoing_transfer.destination" doc:"who received the asset out (may differ from the sender)"`
	Pool            Address `json:"pool,omitempty" role:"contract" doc:"the (first) pool"`
	AmountIn        BigInt  `json:"amount_in,omitempty" tc:"dex_incoming_transfer.amount" doc:"amount of the asset in"`
	AmountOut       BigInt  `json:"amount_out,omitempty" tc:"dex_outgoing_transfer.amount" doc:"amount of the asset out (on a refund: what came back)"`
	JettonMasterIn  Address `json:"jetton_master_in,omitempty" role:"master" tc:"asset_in" doc:"the asset in (jetton master); absent for TON; pTON's master when STON.fi or Tonco wrap TON"`
	JettonMasterOut Address `json:"jetton_master_out,omitempty" role:"master" tc:"asset_out" doc:"the asset out, likewise"`
	SenderWallet    Address `json:"sender_wallet,omitempty" role:"source" tc:"dex_incoming_transfer.source_jetton_wallet" doc:"the sender's jetton wallet"`
	DexWalletIn     Address `json:"dex_wallet_in,omitempty" tc:"dex_incoming_transfer.destination_jetton_wallet" doc:"the DEX's jetton wallet (or TON vault) that took the asset in"`
	DexWalletOut    Address `json:"dex_wallet_out,omitempty" tc:"dex_outgoing_transfer.source_jetton_wallet" doc:"the DEX's jetton wallet (or TON vault) that paid out"`
	RecipientWallet Address `json:"recipient_wallet,omitempty" role:"destination" tc:"dex_outgoing_transfer.destination_jetton_wallet" doc:"the recipient's jetton wallet"`
	// The two transfers as toncenter reports them, and one entry per pool
	// of a route.
	DexIncomingTransfer *SwapTransfer `json:"dex_incoming_transfer,omitempty" tc:"dex_incoming_transfer" doc:"the transfer of the asset into the DEX"`
	DexOutgoingTransfer *SwapTransfer `json:"dex_outgoing_transfer,omitempty" tc:"dex_outgoing_transfer" doc:"the transfer of the asset out of the DEX"`
	PeerSwaps           []PeerSwap    `json:"peer_swaps,omitempty" tc:"peer_swaps" doc:"one entry per pool of a route through several pools, in order"`
	MinOutAmount        BigInt        `json:"min_out_amount,omitempty" tc:"min_out_amount" doc:"the least amount out the sender accepted, when the request names it"`
}

// SwapTransfer is one transfer of a swap, into or out of the DEX.
type SwapTransfer struct {
	Asset                   Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"jetton master; absent for TON"`
	Amount                  BigInt  `json:"amount,omitempty" tc:"amount" doc:"amount moved"`
	Source                  Address `json:"source,omitempty" tc:"source" doc:"owner of the asset before: the user (in) or the DEX contract that paid (out)"`
	Destination             Address `json:"destination,omitempty" tc:"destination" doc:"owner after: the DEX contract that took it (in) or the recipient (out)"`
	SourceJettonWallet      Address `json:"source_jetton_wallet,omitempty" tc:"source_jetton_wallet" doc:"the jetton wallet the asset left; absent for TON"`
	DestinationJettonWallet Address `json:"destination_jetton_wallet,omitempty" tc:"destination_jetton_wallet" doc:"the jetton wallet the asset reached; absent for TON"`
}

// PeerSwap is one pool's part of a route.
type PeerSwap struct {
	AssetIn   Address `json:"asset_in,omitempty" role:"master" tc:"asset_in" doc:"asset into the pool; absent for TON"`
	AmountIn  BigInt  `json:"amount_in,omitempty" tc:"amount_in" doc:"amount into the pool"`
	AssetOut  Address `json:"asset_out,omitempty" role:"master" tc:"asset_out" doc:"asset out of the pool; absent for TON"`
	AmountOut BigInt  `json:"amount_out,omitempty" tc:"amount_out" doc:"amount out of the pool"`
}

func init() {
	declare(Type{Value: JettonSwap{}, Toncenter: "jetton_swap", Protocols: "STON.fi v1 and v2, DeDust, Coffee, Tonco",
		Doc:    "Anchored at the pool's swap request; from the asset that came in to what the last pool of the route paid out. A pool of another DEX further down is a swap of its own.",
		Failed: "the pool failed, a leg failed, nothing came out, or what came out is the asset that went in (refund)"})
	addMatcher(OrderProtocol, "JettonSwap", matchJettonSwap)
}

// matchJettonSwap anchors at a pool's swap request, then walks up to the
// asset that came in and down to the asset paid out.
func matchJettonSwap(c *classifier, p *node) bool {
	dex := poolOps[p.op]
	if !isPoolRequest(p) {
		return false
	}
	in, ok := c.swapIncoming(p)
	if !ok {
		return false
	}
	v := &JettonSwap{Dex: dex, Pool: Address(p.tx.Account)}
	d := newDraft(v, p.in().Hash, p)
	// A route through several pools (the DEX hands what one pool paid out
	// to the next pool without paying the user): one swap from the asset
	// that came in to what the last pool paid out.
	last := p
	for next := c.nextHop(last, in.owner); next != nil; next = c.nextHop(last, in.owner) {
		for a := next.parent; a != nil && a != last && !a.used; a = a.parent {
			d.nodes = append(d.nodes, a)
		}
		d.nodes = append(d.nodes, next)
		last = next
	}
	out, found := c.swapOutgoing(last, in.owner)
	d.nodes = append(d.nodes, in.nodes...)
	d.nodes = append(d.nodes, out.nodes...)
	if len(out.nodes) > 0 {
		// The DEX steps between the pool and the payout (pay_to, payment request).
		for a := out.nodes[0].parent; a != nil && a != last && !a.used; a = a.parent {
			d.nodes = append(d.nodes, a)
		}
	}
	for a := p.parent; a != nil; a = a.parent {
		// The router steps between the incoming leg and the pool.
		if a.used || a == in.nodes[0] {
			break
		}
		d.nodes = append(d.nodes, a)
	}
	if len(in.nodes) > 0 {
		d.withInitiator(in.nodes[0])
	}
	// A refund pays back the asset that came in: the same master, or the
	// very DEX wallet that took it in paying it out (masters are often
	// unknown without indexer facts).
	refund := in.master() != "" && in.master() == out.master() || in.dexWallet != "" && in.dexWallet == out.dexWallet
	d.ok = p.ok() && last.ok() && found && !refund && (in.leg == nil || in.leg.ok) && (out.leg == nil || out.leg.ok)
	v.Sender, v.Recipient = Address(in.owner), Address(out.owner)
	v.AmountIn, v.AmountOut = in.amount, out.amount
	v.JettonMasterIn, v.JettonMasterOut = Address(in.master()), Address(out.master())
	if in.leg != nil {
		v.SenderWallet, v.DexWalletIn = Address(in.leg.sourceWallet), Address(in.leg.destWallet)
	}
	if out.leg != nil {
		v.DexWalletOut, v.RecipientWallet = Address(out.leg.sourceWallet), Address(out.leg.destWallet)
	}
	c.add(d)
	return true
}

// swapIncoming: the nearest jetton transfer above the pool, else the TON
// the user sent to the first DEX contract.
func (c *classifier) swapIncoming(p *node) (swapSide, bool) {
	var top *node
	for a := p.parent; a != nil && a.in() != nil && !a.in().IsExternalIn(); a = a.parent {
		if l, ok := c.followTransfer(a); ok && !a.used {
			s := swapSide{leg: l, owner: l.owner, amount: l.amount, jetton: l.master, dexWallet: l.destWallet, nodes: l.nodes()}
			if l.receive == nil { // pTON: the wallet that took the transfer is the DEX's
				s.dexWallet = l.sourceWallet
			}
			return s, true
		}
		top = a
	}
	if top == nil || top.used {
		return swapSide{}, false
	}
	// The contract that took the TON (a native vault, a pTON wallet) is
	// the one that would pay it back on a refund.
	s := swapSide{owner: top.in().Source, amount: nano(tonIn(top)), dexWallet: top.tx.Account, nodes: []*node{top}}
	return s, true
}

// swapOutgoing: below the pool, the jetton transfer (or TON payout) that
// reaches the user; other transfers there (referral fees) stay separate.
func (c *classifier) swapOutgoing(p *node, user string) (swapSide, bool) {
	var legs []*jettonLeg
	var payouts []*node
	var walk func(n *node)
	walk = func(n *node) {
		for _, ch := range n.children {
			if ch.used || isPoolRequest(ch) { // another pool: its own swap, or the next hop
				continue
			}
			if l, ok := c.followTransfer(ch); ok {
				legs = append(legs, l)
				continue
			}
			if isPayout(ch) || (ch.tx.Account == user && ch.in().Value > 0 && !ch.is(abi.ExcessMsgOpCode)) {
				payouts = append(payouts, ch)
				continue
			}
			walk(ch)
		}
	}
	walk(p)
	for _, l := range legs {
		if l.recipient == user || l.receive == nil && l.send.child(abi.JettonNotifyMsgOpCode) != nil && l.recipient == user {
			return c.outLeg(l), true
		}
	}
	for _, n := range payouts {
		if n.tx.Account == user || isPayout(n) {
			return swapSide{owner: n.tx.Account, amount: nano(tonOut(n)), dexWallet: n.in().Source, nodes: []*node{n}}, true
		}
	}
	if len(legs) > 0 {
		return c.outLeg(legs[0]), true
	}
	return swapSide{}, false
}

// nextHop finds the next pool of the same DEX in a route below pool p: a
// swap request reached before anything was paid out to the user. A pool of
// another DEX is a swap of its own (aggregators chain DEXes, and each DEX's
// part is reported as that DEX's swap).
func (c *classifier) nextHop(p *node, user string) *node {
	var found *node
	var walk func(n *node)
	walk = func(n *node) {
		for _, ch := range n.children {
			if found != nil || ch.used {
				return
			}
			if isPoolRequest(ch) {
				if poolOps[ch.op] == poolOps[p.op] {
					found = ch
					return
				}
				continue
			}
			// What reaches the user ends the route; a transfer to another
			// router (multi-router routes) does not.
			if l, isLeg := c.followTransfer(ch); isLeg && l.recipient == user || ch.tx.Account == user || isPayout(ch) {
				continue
			}
			walk(ch)
		}
	}
	walk(p)
	return found
}

// outLeg handles a pTON-style wallet that pays TON (with a notification,
// or pTON v2's ton_transfer) instead of moving jettons: then the asset out
// is TON.
func (c *classifier) outLeg(l *jettonLeg) swapSide {
	if l.receive == nil {
		if n := l.send.child(abi.JettonNotifyMsgOpCode, abi.PtonTonTransferMsgOpCode); n != nil {
			return swapSide{owner: n.tx.Account, amount: l.amount, jetton: l.master, dexWallet: l.sourceWallet, nodes: []*node{l.send, n}}
		}
	}
	return swapSide{leg: l, owner: l.recipient, amount: l.amount, jetton: l.master, dexWallet: l.sourceWallet, nodes: l.nodes()}
}
