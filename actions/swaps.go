package actions

import (
	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
)

// swapSide is the asset moving into or out of the DEX: a jetton leg, or TON.
type swapSide struct {
	leg    *jettonLeg // nil for TON
	owner  string     // who sent (in) or received (out)
	amount string
	jetton string // master of the asset; pTON's master for TON wrapped by STON.fi
	// dexWallet is the DEX's jetton wallet the asset went into (in) or
	// came out of (out); "" for TON.
	dexWallet string
	nodes     []*node
}

func (s swapSide) master() string { return s.jetton }

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
	d := newDraft(chain.JettonSwap, p.in().Hash, p)
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
	d.set("dex", dex)
	d.set("sender", in.owner)
	d.set("recipient", out.owner)
	d.set("pool", p.tx.Account)
	d.set("amount_in", in.amount)
	d.set("amount_out", out.amount)
	d.set("jetton_master_in", in.master())
	d.set("jetton_master_out", out.master())
	if in.leg != nil {
		d.set("sender_wallet", in.leg.sourceWallet)
		d.set("dex_wallet_in", in.leg.destWallet)
	}
	if out.leg != nil {
		d.set("dex_wallet_out", out.leg.sourceWallet)
		d.set("recipient_wallet", out.leg.destWallet)
	}
	d.account(in.owner, chain.RoleSender)
	d.account(out.owner, chain.RoleRecipient)
	d.account(p.tx.Account, chain.RoleContract)
	d.account(in.master(), chain.RoleMaster)
	d.account(out.master(), chain.RoleMaster)
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
	s := swapSide{owner: top.in().Source, amount: uintString(tonIn(top)), dexWallet: top.tx.Account, nodes: []*node{top}}
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
			return swapSide{owner: n.tx.Account, amount: uintString(tonOut(n)), dexWallet: n.in().Source, nodes: []*node{n}}, true
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
