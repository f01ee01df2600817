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
	// came out of (out), or the TON vault; it tells a refund.
	dexWallet string
	nodes     []*node
	// xfer is the move as toncenter reports it; the DEX's rules (dexes
	// files) refine it.
	xfer SwapTransfer
}

func (s swapSide) master() string { return s.jetton }

// JettonSwap: an asset exchanged for another on a DEX.
type JettonSwap struct {
	Dex             Text    `json:"dex,omitempty" tc:"dex" doc:"stonfi, stonfi_v2, dedust, coffee, tonco, megaton, bidask or mooncx"`
	Sender          Address `json:"sender,omitempty" role:"sender" tc:"sender" doc:"who sent the asset in (dex_incoming_transfer.source)"`
	Recipient       Address `json:"recipient,omitempty" role:"recipient" tc:"dex_outgoing_transfer.destination" doc:"who received the asset out (may differ from the sender)"`
	Pool            Address `json:"pool,omitempty" role:"contract" doc:"the (first) pool"`
	AmountIn        BigInt  `json:"amount_in,omitempty" tc:"dex_incoming_transfer.amount" doc:"amount of the asset in"`
	AmountOut       BigInt  `json:"amount_out,omitempty" tc:"dex_outgoing_transfer.amount" doc:"amount of the asset out (on a refund: what came back)"`
	JettonMasterIn  Address `json:"jetton_master_in,omitempty" role:"master" tc:"asset_in" doc:"the asset in (jetton master, dex_incoming_transfer.asset); absent for TON, except STON.fi v1 which names its pTON master"`
	JettonMasterOut Address `json:"jetton_master_out,omitempty" role:"master" tc:"asset_out" doc:"the asset asked for (jetton master): on a refund the request's target, not what came back (that is dex_outgoing_transfer.asset); absent for TON, except STON.fi v1's pTON"`
	SenderWallet    Address `json:"sender_wallet,omitempty" role:"source" tc:"dex_incoming_transfer.source_jetton_wallet" doc:"the sender's jetton wallet"`
	DexWalletIn     Address `json:"dex_wallet_in,omitempty" tc:"dex_incoming_transfer.destination_jetton_wallet" doc:"the DEX's jetton wallet (or pTON wallet) that took the asset in"`
	DexWalletOut    Address `json:"dex_wallet_out,omitempty" tc:"dex_outgoing_transfer.source_jetton_wallet" doc:"the DEX's jetton wallet that paid out"`
	RecipientWallet Address `json:"recipient_wallet,omitempty" role:"destination" tc:"dex_outgoing_transfer.destination_jetton_wallet" doc:"the recipient's jetton wallet"`
	DexWalletTarget Address `json:"dex_wallet_target,omitempty" doc:"the DEX's jetton wallet of the asset asked for, as the request names it (STON.fi, Tonco); jetton_master_out is its master"`
	// The two transfers as toncenter reports them, and one entry per pool
	// of a route.
	DexIncomingTransfer *SwapTransfer `json:"dex_incoming_transfer,omitempty" tc:"dex_incoming_transfer" doc:"the transfer of the asset into the DEX"`
	DexOutgoingTransfer *SwapTransfer `json:"dex_outgoing_transfer,omitempty" tc:"dex_outgoing_transfer" doc:"the transfer of the asset out of the DEX"`
	PeerSwaps           []PeerSwap    `json:"peer_swaps,omitempty" tc:"peer_swaps" doc:"one entry per pool of a route through several pools, in order; absent for one pool"`
	MinOutAmount        BigInt        `json:"min_out_amount,omitempty" tc:"min_out_amount" doc:"the least amount out the sender accepted (of the route's last pool), when the request names it"`
}

// SwapTransfer is one transfer of a swap, into or out of the DEX.
type SwapTransfer struct {
	Asset                   Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"jetton master; absent for TON (STON.fi v1 names its pTON master)"`
	Amount                  BigInt  `json:"amount,omitempty" tc:"amount" doc:"amount moved"`
	Source                  Address `json:"source,omitempty" tc:"source" doc:"owner of the asset before: the user (in) or the DEX contract that paid (out: the router, vault or, for Coffee's TON, the pool)"`
	Destination             Address `json:"destination,omitempty" tc:"destination" doc:"owner after: the DEX contract that took it (in: router or vault) or the recipient (out)"`
	SourceJettonWallet      Address `json:"source_jetton_wallet,omitempty" tc:"source_jetton_wallet" doc:"the jetton wallet the asset left; absent for TON and pTON"`
	DestinationJettonWallet Address `json:"destination_jetton_wallet,omitempty" tc:"destination_jetton_wallet" doc:"the jetton wallet the asset reached (in: the pTON wallet that took TON); absent for TON"`
}

// PeerSwap is one pool's part of a route.
type PeerSwap struct {
	AssetIn   Address `json:"asset_in,omitempty" role:"master" tc:"asset_in" doc:"asset into the pool; absent for TON"`
	AmountIn  BigInt  `json:"amount_in,omitempty" tc:"amount_in" doc:"amount into the pool"`
	AssetOut  Address `json:"asset_out,omitempty" role:"master" tc:"asset_out" doc:"asset out of the pool; absent for TON"`
	AmountOut BigInt  `json:"amount_out,omitempty" tc:"amount_out" doc:"amount out of the pool"`
}

func init() {
	declare(Type{Value: JettonSwap{}, Title: "Swap", Describe: describeAs(func(v *JettonSwap, w *Words) string {
		if w.Failed {
			// A refund: amount_out is what came back, of the asset in
			// unless the outgoing transfer names another.
			back := v.JettonMasterIn
			if v.DexOutgoingTransfer != nil && v.DexOutgoingTransfer.Asset != "" {
				back = v.DexOutgoingTransfer.Asset
			}
			return "Failed: swap of " + w.Asset(v.JettonMasterIn, v.AmountIn) + " on " + w.Dex(v.Dex) + ", " + w.Asset(back, v.AmountOut) + " refunded"
		}
		s := "Swapped " + w.Asset(v.JettonMasterIn, v.AmountIn) + " for " + w.Asset(v.JettonMasterOut, v.AmountOut) + " on " + w.Dex(v.Dex)
		if v.Recipient != "" && v.Sender != "" && v.Recipient != v.Sender {
			s += ", paid to " + w.Account(v.Recipient)
		}
		return s
	}),
		Toncenter: "jetton_swap", Protocols: "STON.fi v1 and v2, DeDust, Coffee, Tonco, Megaton, Bidask, MoonCX",
		Doc: "Anchored at the pool's swap request; from the asset that came in to what the last pool of the route paid out. A pool of another DEX further down is a swap of its own. " +
			"A Coffee route is a swap only when every pool logged its swap (a refused Coffee swap is its transfers and calls, as toncenter reports it). " +
			"As toncenter's matchers require, a STON.fi or Tonco route is a swap only when every pool answered the router (payment request, pay_to) and a jetton transfer paid out " +
			"(a STON.fi v2 or Tonco pool further down that never answered ends the route before it: the swap is the route so far), " +
			"a DeDust one only when the asset came with a swap request (swap#e3a0d482 jetton payload, swap#ea06185d) and the last pool's payout_from_pool paid out.",
		Failed: "the pool failed, a leg failed, or the DEX's own answer says so (STON.fi payment/pay_to exit code, Tonco pay_to exit code, a DeDust or Coffee pool of the route that logged no swap); " +
			"where the DEX gives no answer (Megaton, Bidask, MoonCX), also when nothing came out or what came out is the asset that went in (refund)",
		Differs: "min_out_amount is the request's minimum (toncenter fills it for Tonco alone, with a successful swap's amount out); Megaton, Bidask and MoonCX are tonapi's DEXes, not toncenter's"})
	addMatcher(OrderProtocol, "JettonSwap", matchJettonSwap)
}

// swapRoute is what a swap consists of: the pools' swap requests in order,
// and the asset in and out.
type swapRoute struct {
	dex     string
	hops    []*node
	in, out swapSide
	found   bool // something came out
}

// hopAnswers is the message with which a pool of a multi-pool route
// answers the router, for the DEXes whose routes toncenter follows hop by
// hop through those answers.
var hopAnswers = map[string]abi.MsgOpCode{"stonfi_v2": abi.StonfiPayToV2MsgOpCode, "tonco": abi.PayToMsgOpCode}

// unansweredHop tells a next pool of the route that never answered (it
// failed without a reply) in a complete trace: toncenter's route ends
// before it, at what the previous pool paid out (to the router, on its
// way to that pool), so the swap is the route so far, as the previous
// pools' answers report it.
func unansweredHop(c *classifier, dex string, next *node) bool {
	answer, ok := hopAnswers[dex]
	return ok && c.trace.Complete && childWith(next, answer) == nil
}

// matchJettonSwap anchors at a pool's swap request, then walks up to the
// asset that came in and down to the asset paid out.
func matchJettonSwap(c *classifier, p *node) bool {
	dex := poolDex(p)
	if dex == "" {
		return false
	}
	in, ok := c.swapIncoming(p)
	if !ok {
		return false
	}
	r := &swapRoute{dex: dex, in: in, hops: []*node{p}}
	d := newDraft(nil, p.in().Hash, p)
	// A route through several pools (the DEX hands what one pool paid out
	// to the next pool without paying the user): one swap from the asset
	// that came in to what the last pool paid out.
	last := p
	for next := c.nextHop(last, in.owner); next != nil; next = c.nextHop(last, in.owner) {
		if unansweredHop(c, dex, next) {
			break
		}
		for a := next.parent; a != nil && a != last && !a.used; a = a.parent {
			d.nodes = append(d.nodes, a)
			if l, ok := c.followTransfer(a); ok {
				// The excess of a jetton transfer that carried the asset
				// to the next pool (a router handing it to itself or to
				// another router) belongs to that transfer, so to the swap.
				d.nodes = append(d.nodes, legExcess(l))
			}
		}
		d.nodes = append(d.nodes, next)
		r.hops = append(r.hops, next)
		last = next
	}
	r.out, r.found = c.swapOutgoing(last, in.owner)
	// toncenter's shapes need the DEX's answers and payout; a trace still
	// under way (pending, or a preview that stopped) may not hold them yet,
	// so the swap stands until the complete trace is classified again.
	if reports, ok := dexReports[dex]; ok && c.trace.Complete && !reports(r) {
		return false
	}
	d.nodes = append(d.nodes, in.nodes...)
	d.nodes = append(d.nodes, r.out.nodes...)
	if len(r.out.nodes) > 0 {
		// The DEX steps between the pool and the payout (pay_to, payment request).
		for a := r.out.nodes[0].parent; a != nil && a != last && !a.used; a = a.parent {
			d.nodes = append(d.nodes, a)
		}
	}
	for a := p.parent; a != nil && in.nodes[0] != p; a = a.parent {
		// The router steps between the incoming leg and the pool.
		if a.used || a == in.nodes[0] {
			break
		}
		d.nodes = append(d.nodes, a)
	}
	if len(in.nodes) > 0 {
		d.withInitiator(in.nodes[0])
	}
	v, facts := c.swapValue(r)
	d.value = v
	d.ok = p.ok() && last.ok() && r.found && facts.ok &&
		(in.leg == nil || in.leg.ok) && (r.out.leg == nil || r.out.leg.ok)
	if !facts.decided {
		// Without the DEX's own answer, a refund tells a failure: the DEX
		// paid back the asset that came in (the same master, or the very
		// DEX wallet that took it in paying it out; masters are often
		// unknown without indexer facts). Where the DEX answers, its answer
		// alone counts, as toncenter's: a route back to the asset it
		// started from (A -> B -> A) went through.
		refund := in.master() != "" && in.master() == r.out.master() || in.dexWallet != "" && in.dexWallet == r.out.dexWallet
		d.ok = d.ok && !refund
	}
	c.add(d)
	return true
}

// swapValue fills the value from the route: the DEX's own rules refine the
// two transfers and add the peer swaps, the target and the minimum out;
// the flat fields mirror the transfers. It also returns what the DEX's own
// messages say (whether the swap went through).
func (c *classifier) swapValue(r *swapRoute) (*JettonSwap, swapFacts) {
	v := &JettonSwap{Dex: Text(r.dex), Pool: Address(r.hops[0].tx.Account)}
	in, out := r.in.xfer, r.out.xfer
	var facts swapFacts
	if rules, ok := dexRules[r.dex]; ok {
		facts = rules(c, r, &in, &out)
	} else {
		facts.ok = true
	}
	if tonWrapped[r.dex] {
		in.Asset, out.Asset = unwrapTON(in.Asset), unwrapTON(out.Asset)
		for i := range facts.peers {
			facts.peers[i].AssetIn, facts.peers[i].AssetOut = unwrapTON(facts.peers[i].AssetIn), unwrapTON(facts.peers[i].AssetOut)
		}
		facts.target = unwrapTON(facts.target)
	}
	if r.found {
		v.DexOutgoingTransfer = &out
	}
	v.DexIncomingTransfer = &in
	if len(facts.peers) > 1 {
		v.PeerSwaps = facts.peers
	}
	v.MinOutAmount = facts.minOut
	if facts.pool != "" {
		v.Pool = facts.pool
	}
	v.DexWalletTarget = facts.targetWallet
	v.Sender, v.SenderWallet, v.DexWalletIn = in.Source, in.SourceJettonWallet, in.DestinationJettonWallet
	v.AmountIn, v.JettonMasterIn = in.Amount, in.Asset
	v.Recipient, v.RecipientWallet, v.DexWalletOut = out.Destination, out.DestinationJettonWallet, out.SourceJettonWallet
	v.AmountOut, v.JettonMasterOut = out.Amount, out.Asset
	if facts.targetKnown {
		v.JettonMasterOut = facts.target
	}
	return v, facts
}

// swapFacts are what a DEX's own messages add to the two transfers.
type swapFacts struct {
	ok           bool    // the DEX's messages say every pool swapped
	decided      bool    // the DEX answered (exit codes, swap logs): ok alone is the verdict
	pool         Address // the pool, when not the contract that took the first request
	peers        []PeerSwap
	minOut       BigInt
	targetWallet Address // the DEX's wallet of the asset asked for
	target       Address // its master ("" for TON)
	targetKnown  bool
}

// swapIncoming: the nearest jetton transfer above the pool, else the TON
// the user sent to the first DEX contract.
func (c *classifier) swapIncoming(p *node) (swapSide, bool) {
	var top *node
	if p.is(abi.MoonSwapMsgOpCode) {
		// The TON and the request reach the pool itself (MoonCX).
		return tonSide(p, p), true
	}
	for a := p.parent; a != nil && a.in() != nil && !a.in().IsExternalIn(); a = a.parent {
		if l, ok := c.followTransfer(a); ok && !a.used {
			s := swapSide{leg: l, owner: l.owner, amount: l.amount, jetton: l.master, dexWallet: l.destWallet, nodes: l.nodes()}
			s.xfer = c.legTransfer(l)
			if l.receive == nil { // pTON: the wallet that took the transfer is the DEX's
				s.dexWallet = l.sourceWallet
				s.nodes = append(s.nodes, legExcess(l))
			}
			return s, true
		}
		top = a
		if a.is(tonEntryOps...) {
			// The DEX's own TON request: whoever sent it is the sender
			// (toncenter's in_transfer), even a contract acting for a
			// wallet further up.
			break
		}
	}
	if top == nil || top.used {
		return swapSide{}, false
	}
	return tonSide(top, p), true
}

// tonEntryOps are the messages that bring TON into a DEX with a swap
// request: pTON v2's ton_transfer (STON.fi v2, Tonco), DeDust's swap at
// the native vault, Coffee's swap at its vault.
var tonEntryOps = []abi.MsgOpCode{abi.PtonTonTransferMsgOpCode, abi.DedustSwapMsgOpCode, abi.CoffeeSwapMsgOpCode}

// tonSide is TON sent into the DEX: top took it, p is the pool's request.
// The contract that took the TON (a native vault, a pTON wallet, a pool)
// is the one that would pay it back on a refund.
func tonSide(top, p *node) swapSide {
	amt := nano(tonIn(top))
	s := swapSide{owner: top.in().Source, amount: amt, dexWallet: top.tx.Account, nodes: []*node{top}}
	s.xfer = SwapTransfer{Amount: amt, Source: Address(top.in().Source), Destination: Address(top.tx.Account)}
	if top.is(abi.PtonTonTransferMsgOpCode) {
		// pTON v2 (STON.fi v2, Tonco): the wallet holds the TON for the
		// router it notifies, the one that asks the pool.
		s.xfer.DestinationJettonWallet = Address(top.tx.Account)
		s.xfer.Destination = Address(p.in().Source)
		if n := top.child(abi.JettonNotifyMsgOpCode); n != nil {
			s.xfer.Destination = Address(n.tx.Account)
		}
	}
	return s
}

// legTransfer is a jetton leg as toncenter reports it: the owner named by
// the receiving wallet when known (else the request's destination); no
// jetton wallets for a pTON-style wallet that moves TON itself.
func (c *classifier) legTransfer(l *jettonLeg) SwapTransfer {
	t := SwapTransfer{Asset: Address(l.master), Amount: l.amount, Source: Address(l.owner), Destination: Address(l.recipient)}
	if l.receive != nil {
		t.SourceJettonWallet, t.DestinationJettonWallet = Address(l.sourceWallet), Address(l.destWallet)
		if o := c.ownerOf(l.destWallet); o != "" {
			t.Destination = Address(o)
		}
	}
	return t
}

// swapOutgoing: below the pool, the jetton transfer (or TON payout) that
// reaches the user; other transfers there (referral fees) stay separate.
func (c *classifier) swapOutgoing(p *node, user string) (swapSide, bool) {
	var legs []*jettonLeg
	var payouts []*node
	var walk func(n *node)
	walk = func(n *node) {
		for _, ch := range n.children {
			if ch.used || isPoolRequest(ch) || isStonfiReferralPayment(ch) { // another pool, or a referral's fee
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
			return payoutSide(n), true
		}
	}
	if len(legs) > 0 {
		return c.outLeg(legs[0]), true
	}
	return swapSide{}, false
}

// payoutSide is TON paid out by a DEX contract (a vault's payout, or a
// plain transfer to the user).
func payoutSide(n *node) swapSide {
	amt := nano(tonOut(n))
	s := swapSide{owner: n.tx.Account, amount: amt, dexWallet: n.in().Source, nodes: []*node{n}}
	s.xfer = SwapTransfer{Amount: amt, Source: Address(n.in().Source), Destination: Address(n.tx.Account)}
	return s
}

// nextHop finds the next pool of the same DEX in a route below pool p: a
// swap request reached before anything was paid out to the user. A pool of
// another DEX is a swap of its own (aggregators chain DEXes, and each DEX's
// part is reported as that DEX's swap).
func (c *classifier) nextHop(p *node, user string) *node {
	var found *node
	dex := poolDex(p)
	var walk func(n *node)
	walk = func(n *node) {
		for _, ch := range n.children {
			if found != nil || ch.used {
				return
			}
			if isPoolRequest(ch) || isPeerHop(ch) {
				if poolDex(ch) == dex || isPeerHop(ch) && dex == "dedust" {
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
			s := swapSide{owner: n.tx.Account, amount: l.amount, jetton: l.master, dexWallet: l.sourceWallet, nodes: []*node{l.send, n, legExcess(l)}}
			s.xfer = SwapTransfer{Asset: Address(l.master), Amount: l.amount, Source: Address(l.owner), Destination: Address(l.recipient)}
			return s
		}
	}
	return swapSide{leg: l, owner: l.recipient, amount: l.amount, jetton: l.master, dexWallet: l.sourceWallet, nodes: l.nodes(), xfer: c.legTransfer(l)}
}

// legExcess is a jetton leg's excess: the receiving wallet's, or the one a
// pTON wallet (which moves TON itself, with no second wallet) sent.
func legExcess(l *jettonLeg) *node {
	if l.receive != nil {
		return l.excess
	}
	return l.send.child(abi.ExcessMsgOpCode)
}
