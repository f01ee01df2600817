package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// matchDedustDeposit anchors at a DeDust pool told deposit_liquidity_all by
// a liquidity-deposit contract: that contract collects each asset the user
// sent to a vault, and asks the pool only once all of them are in. Every
// branch of the trace that fed the same deposit contract is one deposit
// (a TON and a jetton sent in one wallet message are one action); the pool
// answers by minting LP jettons, or by cancelling and refunding.
func matchDedustDeposit(c *classifier, p *node) bool {
	if !p.is(abi.DedustDepositLiquidityAllMsgOpCode) {
		return false
	}
	body, ok := bodyAs[abi.DedustDepositLiquidityAllMsgBody](p)
	if !ok {
		return false
	}
	owner, deposit := addr(body.OwnerAddr), p.in().Source
	d := newDraft(chain.DexDepositLiquidity, p.in().Hash, p)
	heads := map[*node]bool{}
	for _, n := range c.nodes {
		if n.tx.Account != deposit || n.used {
			continue
		}
		if h := requestOf(n, owner); !heads[h] {
			heads[h] = true
			d.claimSubtree(h)
			d.withInitiator(h)
		}
	}
	d.claimSubtree(p)
	lp := p.child(abi.JettonInternalTransferMsgOpCode)
	d.ok = p.ok() && lp != nil && lp.ok()
	if lp != nil {
		if _, amt, ok := internalTransferHead(lp); ok {
			d.set("lp_amount", amt)
		}
		d.set("lp_wallet", lp.tx.Account)
	}
	d.set("dex", "dedust")
	d.set("sender", owner)
	d.set("pool", p.tx.Account)
	d.set("deposit_contract", deposit)
	assets := body.Field4
	d.set("asset_1", dedustAsset(assets.Asset0))
	d.set("amount_1", amount(assets.Asset0Amount))
	d.set("asset_2", dedustAsset(assets.Asset1))
	d.set("amount_2", amount(assets.Asset1Amount))
	d.account(owner, chain.RoleSender)
	d.account(p.tx.Account, chain.RoleContract)
	d.account(deposit, chain.RoleOther)
	d.account(dedustAsset(assets.Asset0), chain.RoleMaster)
	d.account(dedustAsset(assets.Asset1), chain.RoleMaster)
	c.add(d)
	return true
}

// requestOf walks up from n to the message the user sent (to a vault, or to
// their jetton wallet): the start of the branch that belongs to the action.
// Without the user on the path it stops below the trace root.
func requestOf(n *node, user string) *node {
	a := n
	for a.in() != nil && a.in().Source != user && a.parent != nil && a.parent.in() != nil && !a.parent.in().IsExternalIn() {
		a = a.parent
	}
	return a
}

// claimSubtree adds n and every unclaimed transaction below it: what a DEX
// answers to a request (refunds, excesses, LP mints) belongs to the request.
func (d *draft) claimSubtree(n *node) {
	d.nodes = append(d.nodes, n)
	for _, ch := range n.children {
		if !ch.used {
			d.claimSubtree(ch)
		}
	}
}

// dedustAsset is the jetton master of a DeDust asset, "" for TON (and for
// extra currencies, which have no address).
func dedustAsset(a abi.DedustAsset) string {
	if a.SumType != "Jetton" {
		return ""
	}
	return chain.RawAddress(ton.AccountID{Workchain: int32(a.Jetton.WorkchainId), Address: a.Jetton.Address})
}
