package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
)

// matchToncoDeposit anchors at a Tonco pool funded by its router
// (poolv3_fund_account 0x4468de77): the router took one asset of a position
// (a jetton, or TON through pTON) and the pool records it in the user's
// account contract (accountv3_add_liquidity). Once both assets are in, that
// contract asks the pool to mint (poolv3_mint 0x81702ef8), which opens the
// position NFT and pays back what the position did not need.
func matchToncoDeposit(c *classifier, f *node) bool {
	if !f.is(abi.Poolv3FundAccountMsgOpCode) {
		return false
	}
	body, ok := bodyAs[abi.Poolv3FundAccountMsgBody](f)
	if !ok {
		return false
	}
	user, pool := addr(body.OwnerAddr), f.tx.Account
	asset0, asset1 := c.toncoAssets(pool, user)
	lower, upper := int64(body.TickLower), int64(body.TickUpper)
	// The targets of the position: both branches name the same two.
	v := &DexDepositLiquidity{Dex: "tonco", Sender: Address(user), Pool: Address(pool),
		Asset1: Address(asset0), Asset2: Address(asset1),
		Amount1: amount(body.Enough0), Amount2: amount(body.Enough1),
		TickLower: &lower, TickUpper: &upper}
	d, head := depositBranch(v, f, user)
	d.ok = pathOK(head, f)
	if acc := f.child(abi.Accountv3AddLiquidityMsgOpCode); acc != nil {
		v.DepositContract = Address(acc.tx.Account)
		d.ok = d.ok && acc.ok()
	}
	if m := below(f, abi.Poolv3MintMsgOpCode); m != nil {
		toncoMint(d, v, m)
	}
	c.add(d)
	return true
}

// toncoMint adds the position the pool opened: its liquidity (reported as
// the LP amount) and the position NFT.
func toncoMint(d *draft, v *DexDepositLiquidity, m *node) {
	d.ok = d.ok && m.ok()
	if b, ok := bodyAs[abi.Poolv3MintMsgBody](m); ok {
		l := big.Int(b.Liquidity)
		v.LpAmount = BigInt(l.String())
	}
	nft := m.child(abi.PositionnftV3PositionInitMsgOpCode)
	if nft == nil {
		return
	}
	d.ok = d.ok && nft.ok()
	v.Nft = Address(nft.tx.Account)
	if b, ok := bodyAs[abi.PositionnftV3PositionInitMsgBody](nft); ok {
		v.NftIndex = nano(uint64(b.OldFeeCell.NftIndex))
	}
}

// toncoAssets finds the pool's two jettons from the branches funding it for
// the user in this trace: a branch that funds amount0 brings jetton0. The
// jetton is that of the router's wallet that notified the router (pTON's
// master for TON), when known; a side funded in an earlier trace stays "".
func (c *classifier) toncoAssets(pool, user string) (string, string) {
	var a0, a1 string
	for _, n := range c.nodes {
		if n.tx.Account != pool || !n.is(abi.Poolv3FundAccountMsgOpCode) || n.parent == nil || n.parent.in() == nil {
			continue
		}
		b, ok := bodyAs[abi.Poolv3FundAccountMsgBody](n)
		if !ok || addr(b.OwnerAddr) != user {
			continue
		}
		m := c.masterOf(n.parent.in().Source)
		if positive(big.Int(b.Amount0)) && a0 == "" {
			a0 = m
		}
		if positive(big.Int(b.Amount1)) && a1 == "" {
			a1 = m
		}
	}
	return a0, a1
}
