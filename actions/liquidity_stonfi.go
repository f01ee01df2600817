package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
)

// stonfiBranch is one asset of a STON.fi v2 deposit: the router's
// provide_lp to the pool and what followed.
type stonfiBranch struct {
	provide, head *node
	in            liqMove
	first         bool // the pool's first token (left amount)
	other         string
	account, cb   *node // the LP account's add_liquidity, the pool's cb_add_liquidity
}

// matchStonfiDeposit anchors at a STON.fi v2 pool told provide_lp
// (0x37c096df) by its router: the router took one asset (a jetton, or TON
// through pTON) whose transfer carried the provide_lp payload. The pool
// records it in the user's LP account (add_liquidity 0x50c6a654); once the
// account holds what the user asked for, it calls the pool back
// (cb_add_liquidity 0x06ecd527), which mints LP jettons or, when the
// deposit fails its checks, hands the assets back to an LP account for a
// refund. As toncenter has it: a provide_lp the pool did not record (no
// add_liquidity) is no deposit; two branches sent by one wallet message to
// the same pool are one action when exactly one of them saw the LP mint;
// a branch sent alone, or two that both ended without a mint (a refund),
// are actions of their own.
func matchStonfiDeposit(c *classifier, p *node) bool {
	if !p.is(abi.StonfiProvideLpV2MsgOpCode) || p.child(abi.StonfiAddLiquidityV2MsgOpCode) == nil {
		return false
	}
	body, ok := bodyAs[abi.StonfiProvideLpV2MsgBody](p)
	if !ok {
		return false
	}
	user, pool := addr(body.FromUser), p.tx.Account
	head := requestOf(p, user)
	branches := []stonfiBranch{c.stonfiBranch(p, head, body)}
	for _, n := range c.nodes {
		if n == p || n.used || n.tx.Account != pool || !n.is(abi.StonfiProvideLpV2MsgOpCode) {
			continue
		}
		b, ok := bodyAs[abi.StonfiProvideLpV2MsgBody](n)
		if !ok || addr(b.FromUser) != user {
			continue
		}
		h := requestOf(n, user)
		if h == head || h.parent == nil || h.parent != head.parent {
			continue
		}
		if o := c.stonfiBranch(n, h, b); o.account != nil && o.minted() != branches[0].minted() {
			branches = append(branches, o)
			break
		}
	}
	if len(branches) == 2 && !branches[0].first && branches[1].first {
		branches[0], branches[1] = branches[1], branches[0]
	}
	v := &DexDepositLiquidity{Dex: "stonfi_v2", Sender: Address(user), Pool: Address(pool),
		DepositContract: Address(branches[0].account.tx.Account)}
	d := newDraft(v, p.in().Hash)
	var ins []liqMove
	for _, b := range branches {
		d.claimSubtree(b.head)
		d.withInitiator(b.head)
		ins = append(ins, b.in)
		own := b.in.asset
		if b.first {
			v.TargetAsset1 = Address(own)
			if v.TargetAsset2 == "" {
				v.TargetAsset2 = Address(b.other)
			}
		} else {
			v.TargetAsset2 = Address(own)
			if v.TargetAsset1 == "" {
				v.TargetAsset1 = Address(b.other)
			}
		}
		if b.cb == nil {
			continue
		}
		// Toncenter's only failure: the pool handed the assets back to an
		// LP account instead of minting.
		if b.cb.child(abi.StonfiAddLiquidityV2MsgOpCode) != nil {
			d.ok = false
		}
		if lp := b.cb.child(abi.JettonInternalTransferMsgOpCode); lp != nil {
			if _, amt, ok := internalTransferHead(lp); ok {
				v.LpAmount = amt
			}
			v.LpWallet = Address(lp.tx.Account)
		}
	}
	v.setDeposited(ins)
	c.add(d)
	return true
}

// minted reports whether the pool minted LP jettons in this branch.
func (b stonfiBranch) minted() bool {
	return b.cb != nil && b.cb.child(abi.JettonInternalTransferMsgOpCode) != nil
}

// stonfiBranch reads one asset's way into a STON.fi v2 deposit.
func (c *classifier) stonfiBranch(p, head *node, body abi.StonfiProvideLpV2MsgBody) stonfiBranch {
	left, right := big.Int(body.LeftAmount), big.Int(body.RightAmount)
	b := stonfiBranch{provide: p, head: head, first: positive(left)}
	b.other = liquidityAsset(c.masterOf(addr(body.DexPayload.TokenWallet1)))
	m, ok := c.sentIn(head)
	if !ok {
		m = liqMove{user: addr(body.FromUser)}
	}
	// The amount the pool was told; the router's wallet that notified it
	// names the asset when the user's side is unknown.
	if b.first {
		m.amount = BigInt(left.String())
	} else {
		m.amount = BigInt(right.String())
	}
	if !m.ton && m.asset == "" && p.parent != nil && p.parent.in() != nil {
		master := c.masterOf(p.parent.in().Source)
		m.asset, m.ton = liquidityAsset(master), liquidityPtonMasters[master]
	}
	b.in = m
	if b.account = p.child(abi.StonfiAddLiquidityV2MsgOpCode); b.account != nil {
		b.cb = b.account.child(abi.StonfiCbAddLiquidityV2MsgOpCode)
	}
	return b
}
