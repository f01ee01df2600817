package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
)

// Coffee, Tonco and STON.fi deposits are built of branches: each asset the
// user sends travels its own branch of the trace, from the user's request
// down to the DEX contract that records it; the branch whose asset arrives
// last sees the pool answer (LP jettons, a position). Withdrawals end in
// payouts: a DEX contract (vault, router) paying each asset back.

// liquidityPtonMasters are the jetton masters that stand for TON at DEXes
// (wrapped TON): an asset of theirs is reported as TON. The list is
// toncenter's (indexer/events/blocks/jettons.py, PTonTransferMatcher):
// STON.fi's pTON v1 and v2 and Tonco's wTTON.
var liquidityPtonMasters = map[string]bool{
	"0:8CDC1D7640AD5EE326527FC1AD0514F468B30DC84B0173F0E155F451B4E11F7C": true,
	"0:671963027F7F85659AB55B821671688601CDCF1EE674FC7FBBB1A776A18D34A3": true,
	"0:949C4C66760C002800E2FA3D8A3CA4E1C90A9373B53AE7472033483BF14CD95E": true,
}

// liquidityAsset is how a deposit or withdrawal names an asset: the jetton
// master, "" for TON (a wrapped-TON master included) or when unknown.
func liquidityAsset(master string) string {
	if liquidityPtonMasters[master] {
		return ""
	}
	return master
}

// depositBranch starts the action of the branch that leads to anchor a (a
// DEX contract taking the user's asset): the user's request above a and
// everything below it, refunds and excesses included. The wallet
// transaction that sent the request is added by the caller (see
// initiatorFor).
func depositBranch(v *DexDepositLiquidity, a *node, user string) (*draft, *node) {
	head := requestOf(a, user)
	d := newDraft(v, head.in().Hash)
	d.claimSubtree(head)
	return d, head
}

// initiatorFor adds the trace's root wallet transaction to a deposit branch.
// When one wallet message started several branches of a deposit, the root
// belongs to the branches that only fund it: the branch that completes the
// deposit is the pool's answer and starts at its own first transaction.
func initiatorFor(d *draft, head *node, completes bool, anchor abi.MsgOpCode) {
	if completes && siblingBranch(head, anchor) {
		return
	}
	d.withInitiator(head)
}

// siblingBranch reports another branch sent by the same transaction as
// head that reaches a message with the anchor op.
func siblingBranch(head *node, op abi.MsgOpCode) bool {
	if head.parent == nil {
		return false
	}
	for _, s := range head.parent.children {
		if s != head && findOp(s, op) != nil {
			return true
		}
	}
	return false
}

// below finds the first unclaimed node of n's subtree (n included) whose
// in-message has one of the ops: the step of a branch that reached the pool.
func below(n *node, ops ...abi.MsgOpCode) *node {
	if n.used {
		return nil
	}
	if n.is(ops...) {
		return n
	}
	for _, ch := range n.children {
		if f := below(ch, ops...); f != nil {
			return f
		}
	}
	return nil
}

// findOp is below without regard to claims.
func findOp(n *node, ops ...abi.MsgOpCode) *node {
	if n.is(ops...) {
		return n
	}
	for _, ch := range n.children {
		if f := findOp(ch, ops...); f != nil {
			return f
		}
	}
	return nil
}

// positive reports a non-zero coin amount.
func positive(v big.Int) bool { return v.Sign() > 0 }

// liqMove is one asset moving between a user and a DEX: into the DEX (a
// deposit branch's start) or out of it (a payout).
type liqMove struct {
	asset      string // jetton master; "" for TON or when unknown
	ton        bool   // TON, native or wrapped (pTON)
	amount     BigInt
	user       string // who sent it (in) or received it (out)
	userWallet string // the user's jetton wallet; "" for TON
	dex        string // the DEX contract that took or paid it (vault, router)
	dexWallet  string // the DEX's jetton wallet; "" for TON
	ok         bool
	nodes      []*node
}

// sentIn reads what the user sent at the start of a branch (head is the
// user's request): a jetton transfer, or TON handed to a pTON wallet with
// ton_transfer (0x01f3835d) that notifies the DEX itself.
func (c *classifier) sentIn(head *node) (liqMove, bool) {
	if head.is(abi.PtonTonTransferMsgOpCode) {
		m := liqMove{ton: true, user: head.in().Source, dexWallet: head.tx.Account, ok: head.ok(), nodes: []*node{head}}
		if b, ok := bodyAs[abi.PtonTonTransferMsgBody](head); ok {
			m.amount = nano(uint64(b.TonAmount))
		}
		if n := head.child(abi.JettonNotifyMsgOpCode); n != nil {
			m.dex = n.tx.Account
			if b, ok := bodyAs[abi.JettonNotifyMsgBody](n); ok {
				m.amount = amount(b.Amount)
			}
		}
		return m, true
	}
	l, ok := c.followTransfer(head)
	if !ok {
		return liqMove{}, false
	}
	m := liqMove{asset: liquidityAsset(l.master), ton: liquidityPtonMasters[l.master], amount: l.amount,
		user: l.owner, userWallet: l.sourceWallet, dex: l.recipient, dexWallet: l.destWallet, ok: l.ok, nodes: l.nodes()}
	if m.ton {
		m.userWallet = ""
	}
	return m, true
}

// paidOut reads what a DEX contract paid with the message n consumed: a
// transfer request to the DEX's jetton wallet (a jetton leg; a pTON wallet
// paying TON with ton_transfer or a notification), or a TON payout
// (DeDust's payout, Coffee's payout or notification: the amount is the
// message's value).
func (c *classifier) paidOut(n *node) (liqMove, bool) {
	if n.is(abi.DedustPayoutMsgOpCode, abi.CoffeePayoutMsgOpCode, abi.CoffeeNotificationMsgOpCode) {
		return liqMove{ton: true, amount: nano(n.in().Value), user: n.tx.Account, dex: n.in().Source,
			ok: n.ok(), nodes: []*node{n}}, true
	}
	l, ok := c.followTransfer(n)
	if !ok {
		return liqMove{}, false
	}
	m := liqMove{asset: liquidityAsset(l.master), ton: liquidityPtonMasters[l.master], amount: l.amount,
		user: l.recipient, userWallet: l.destWallet, dex: l.owner, dexWallet: l.sourceWallet, ok: l.ok, nodes: l.nodes()}
	if l.receive == nil {
		// A pTON wallet pays the TON it holds itself.
		if t := n.child(abi.PtonTonTransferMsgOpCode); t != nil {
			m.ton, m.asset, m.userWallet, m.ok = true, "", "", n.ok() && t.ok()
			if b, ok := bodyAs[abi.PtonTonTransferMsgBody](t); ok {
				m.amount = nano(uint64(b.TonAmount))
			}
			m.nodes = append(m.nodes, t)
		} else if t := n.child(abi.JettonNotifyMsgOpCode); t != nil {
			m.ton, m.asset, m.userWallet = true, "", ""
		}
	}
	if m.ton {
		m.userWallet = ""
	}
	return m, true
}

// excess is the value of a payout as a deposit's excess.
func (m liqMove) excess() DexDepositLiquidityExcess {
	return DexDepositLiquidityExcess{Asset: Address(m.asset), Amount: m.amount}
}
