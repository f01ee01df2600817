package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// matchCoffeeDeposit anchors at a Coffee vault asking for a liquidity
// depository (create_liquidity_depository_request 0xc0ffee27): the vault
// took one asset of a deposit, TON by deposit_liquidity (0xc0ffee04) or a
// jetton whose notification carries the deposit parameters. The depository
// it deploys (deploy 0xc0ffee22, which toncenter requires) collects both
// assets; the branch whose asset arrives last sees it tell the pool
// (deposit_liquidity_internal 0xc0ffee29), which mints LP and pays back
// (payout_internal 0xc0ffee21 to a vault) what it did not take. As
// toncenter has it, the deposit is never failed, and a pool that minted
// nothing (it refunded both assets) is no part of it: its refund is left
// to the jetton transfers and calls it is made of.
func matchCoffeeDeposit(c *classifier, r *node) bool {
	if !r.is(abi.CoffeeCreateLiquidityDepositoryRequestMsgOpCode) || r.parent == nil || r.parent.in() == nil {
		return false
	}
	dep := r.child(abi.CoffeeDeployMsgOpCode)
	if dep == nil {
		return false
	}
	body, ok := bodyAs[abi.CoffeeCreateLiquidityDepositoryRequestMsgBody](r)
	if !ok {
		return false
	}
	vault := r.parent
	user := addr(body.Sender)
	if user == "" {
		user = vault.in().Source
	}
	pair := body.Params.PoolParams
	first, second := coffeeAsset(pair.First), coffeeAsset(pair.Second)
	own, _ := coffeeSides(c, vault, pair)
	v := &DexDepositLiquidity{Dex: "coffee", Sender: Address(user), Asset1: Address(own),
		Amount1: nano(uint64(body.Amount)), TargetAsset1: Address(first), TargetAsset2: Address(second),
		DepositContract: Address(dep.tx.Account)}
	head := requestOf(vault, user)
	d := newDraft(v, head.in().Hash)
	p := below(r, abi.CoffeeDepositLiquidityInternalMsgOpCode)
	if p != nil && p.child(abi.JettonInternalTransferMsgOpCode) == nil {
		d.claimBelow(head, p)
		p = nil
	} else {
		d.claimSubtree(head)
	}
	if !vault.is(abi.CoffeeDepositLiquidityMsgOpCode) {
		if m, ok := c.sentIn(head); ok {
			v.UserJettonWallet1 = Address(m.userWallet)
		}
	}
	if p != nil {
		c.coffeePoolAnswer(v, p)
	}
	initiatorFor(d, head, p != nil, abi.CoffeeCreateLiquidityDepositoryRequestMsgOpCode)
	c.add(d)
	return true
}

// coffeePoolAnswer adds what the pool did with the completed deposit: the
// amounts the depository handed it (deposit_liquidity_internal names them
// in the pool's asset order), the LP jettons it minted, and what it paid
// back through the vaults.
func (c *classifier) coffeePoolAnswer(v *DexDepositLiquidity, p *node) {
	v.Pool, v.DepositContract = Address(p.tx.Account), Address(p.in().Source)
	if b, ok := bodyAs[abi.CoffeeDepositLiquidityInternalMsgBody](p); ok {
		v.TargetAmount1, v.TargetAmount2 = nano(uint64(b.Amount1)), nano(uint64(b.Amount2))
	}
	for _, ch := range p.children {
		if !ch.is(abi.CoffeePayoutInternalMsgOpCode) {
			continue
		}
		for _, pay := range ch.children {
			if m, ok := c.paidOut(pay); ok {
				v.VaultExcesses = append(v.VaultExcesses, m.excess())
			}
		}
	}
	lp := p.child(abi.JettonInternalTransferMsgOpCode)
	if _, amt, ok := internalTransferHead(lp); ok {
		v.LpAmount = amt
	}
	v.LpWallet = Address(lp.tx.Account)
}

// coffeeSides returns the asset the vault took (first) and the asset it is
// paired with: TON for the native vault, else the jetton of the wallet that
// notified the vault, or, when that wallet is unknown, the pair's only jetton.
func coffeeSides(c *classifier, vault *node, pair abi.CoffeePoolParams) (string, string) {
	a, b := coffeeAsset(pair.First), coffeeAsset(pair.Second)
	own := ""
	if !vault.is(abi.CoffeeDepositLiquidityMsgOpCode) {
		own = c.masterOf(vault.in().Source)
		if own == "" && (a == "") != (b == "") {
			own = a + b
		}
	}
	if own == a {
		return own, b
	}
	return own, a
}

// coffeeAsset is the jetton master of a Coffee asset, "" for TON (and for
// extra currencies, which have no address).
func coffeeAsset(a abi.CoffeeAsset) string {
	if a.SumType != "Jetton" {
		return ""
	}
	id := ton.AccountID{Workchain: int32(int8(a.Jetton.Chain))} // the chain byte is a signed workchain
	h := big.Int(a.Jetton.Hash)
	h.FillBytes(id.Address[:])
	return chain.RawAddress(id)
}
