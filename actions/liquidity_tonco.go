package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
)

// matchToncoDeposit anchors at a Tonco pool funded by its router
// (poolv3_fund_account 0x4468de77): the router took one asset of a position
// (a jetton, or TON through its wTTON wallet) and the pool records it in the
// user's account contract (accountv3_add_liquidity). Once both assets are
// in, that contract asks the pool to mint (poolv3_mint 0x81702ef8), which
// opens the position NFT and has the router pay back (pay_to 0xa1daa96d)
// what the position did not need. As toncenter has it, a branch the pool
// did not record (no add_liquidity) is no deposit, and a deposit is never
// failed.
func matchToncoDeposit(c *classifier, f *node) bool {
	if !f.is(abi.Poolv3FundAccountMsgOpCode) {
		return false
	}
	acc := f.child(abi.Accountv3AddLiquidityMsgOpCode)
	if acc == nil {
		return false
	}
	body, ok := bodyAs[abi.Poolv3FundAccountMsgBody](f)
	if !ok {
		return false
	}
	user, pool := addr(body.OwnerAddr), f.tx.Account
	lower, upper := int64(body.TickLower), int64(body.TickUpper)
	v := &DexDepositLiquidity{Dex: "tonco", Sender: Address(user), Pool: Address(pool),
		DepositContract: Address(acc.tx.Account),
		TargetAmount1:   amount(body.Enough0), TargetAmount2: amount(body.Enough1),
		TickLower: &lower, TickUpper: &upper}
	d, head := depositBranch(v, f, user)
	own, other := c.toncoSides(f, head, user)
	v.Asset1 = Address(own)
	if positive(big.Int(body.Amount0)) || !positive(big.Int(body.Amount1)) {
		v.TargetAsset1, v.TargetAsset2 = Address(own), Address(other)
	} else {
		v.TargetAsset1, v.TargetAsset2 = Address(other), Address(own)
	}
	if n := f.parent; n != nil && n.is(abi.JettonNotifyMsgOpCode) {
		if b, ok := bodyAs[abi.JettonNotifyMsgBody](n); ok {
			v.Amount1 = amount(b.Amount) // what the router was told it got
		}
	}
	if m, ok := c.sentIn(head); ok {
		v.UserJettonWallet1 = Address(m.userWallet)
		if v.Amount1 == "" {
			v.Amount1 = m.amount
		}
	}
	m := below(f, abi.Poolv3MintMsgOpCode)
	if m != nil {
		c.toncoMint(v, m, user)
	}
	initiatorFor(d, head, m != nil, abi.Poolv3FundAccountMsgOpCode)
	c.add(d)
	return true
}

// toncoMint adds the position the pool opened: its liquidity (reported as
// the LP amount), the position NFT, and what the router paid back.
func (c *classifier) toncoMint(v *DexDepositLiquidity, m *node, user string) {
	if b, ok := bodyAs[abi.Poolv3MintMsgBody](m); ok {
		l := big.Int(b.Liquidity)
		v.LpAmount = BigInt(l.String())
	}
	for _, ch := range m.children {
		if !ch.is(abi.PayToMsgOpCode) {
			continue
		}
		for _, pay := range ch.children {
			if p, ok := c.paidOut(pay); ok && p.user == user {
				v.VaultExcesses = append(v.VaultExcesses, p.excess())
			}
		}
	}
	nft := m.child(abi.PositionnftV3PositionInitMsgOpCode)
	if nft == nil {
		return
	}
	v.Nft = Address(nft.tx.Account)
	if b, ok := bodyAs[abi.PositionnftV3PositionInitMsgBody](nft); ok {
		v.NftIndex = nano(b.OldFeeCell.NftIndex)
		if l := big.Int(b.Liquidity); l.Sign() > 0 {
			v.LpAmount = BigInt(l.String())
		}
	}
}

// toncoSides returns the asset a branch funds and the asset it is paired
// with. The funded one is the jetton of the router's wallet that notified
// the router (TON when the user sent TON through wTTON); the paired one is
// the jetton of the router wallet the notification names (jetton_target),
// else the one another branch of the trace funds for the same position.
func (c *classifier) toncoSides(f, head *node, user string) (string, string) {
	var own, other string
	notify := f.parent
	if head.is(abi.PtonTonTransferMsgOpCode) {
		own = ""
	} else if notify != nil && notify.in() != nil {
		own = liquidityAsset(c.masterOf(notify.in().Source))
		if own == "" {
			if m, ok := c.sentIn(head); ok {
				own = m.asset
			}
		}
	}
	if notify != nil && notify.is(abi.JettonNotifyMsgOpCode) {
		if b, ok := bodyAs[abi.JettonNotifyMsgBody](notify); ok {
			if p, ok := b.ForwardPayload.Value.Value.(abi.PoolFundAccountJettonPayload); ok {
				other = liquidityAsset(c.masterOf(addr(p.JettonTarget)))
			}
		}
	}
	if other == "" {
		other = c.toncoOtherSide(f, user)
	}
	return own, other
}

// toncoOtherSide is the asset another branch of the trace funds for the
// same user at the same pool, on the other side of the position.
func (c *classifier) toncoOtherSide(f *node, user string) string {
	b, ok := bodyAs[abi.Poolv3FundAccountMsgBody](f)
	if !ok {
		return ""
	}
	first := positive(big.Int(b.Amount0))
	for _, n := range c.nodes {
		if n == f || n.tx.Account != f.tx.Account || !n.is(abi.Poolv3FundAccountMsgOpCode) || n.parent == nil || n.parent.in() == nil {
			continue
		}
		o, ok := bodyAs[abi.Poolv3FundAccountMsgBody](n)
		if !ok || addr(o.OwnerAddr) != user || positive(big.Int(o.Amount0)) == first {
			continue
		}
		return liquidityAsset(c.masterOf(n.parent.in().Source))
	}
	return ""
}
