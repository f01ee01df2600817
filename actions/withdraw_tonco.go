package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// Tonco (TONCO v3) op codes and layouts tongo's abi lacks, from the
// protocol's TL-B as toncenter's indexer decodes it
// (events/blocks/messages/liquidity.py and swaps.py).
const (
	toncoStartBurnOp    abi.MsgOpCode = 0x530b5f2c // POOLV3_START_BURN, user -> pool
	toncoPositionBurnOp abi.MsgOpCode = 0x46ca335a // POSITIONNFTV3_POSITION_BURN, pool -> NFT
	toncoPoolBurnOp     abi.MsgOpCode = 0xd73ac09d // POOLV3_BURN, NFT -> pool
)

// toncoStartBurnBody: query_id:uint64 burned_index:uint64
// liquidity_to_burn:uint128 tick_lower:int24 tick_upper:int24.
type toncoStartBurnBody struct {
	Op              uint32
	QueryID         uint64
	BurnedIndex     uint64
	LiquidityToBurn tlb.Uint128
	TickLower       tlb.Int24
	TickUpper       tlb.Int24
}

// toncoPositionBurnBody: query_id:uint64 nft_owner:MsgAddress
// liquidity_to_burn:uint128 tick_lower:int24 tick_upper:int24 (then a ref).
type toncoPositionBurnBody struct {
	Op              uint32
	QueryID         uint64
	NftOwner        tlb.MsgAddress
	LiquidityToBurn tlb.Uint128
	TickLower       tlb.Int24
	TickUpper       tlb.Int24
}

// toncoPoolBurnBody: query_id:uint64 recipient:MsgAddress burned_index:uint64
// liquidity:uint128 tick_lower:int24 tick_upper:int24
// liquidity_to_burn:uint128 (then two refs).
type toncoPoolBurnBody struct {
	Op              uint32
	QueryID         uint64
	Recipient       tlb.MsgAddress
	BurnedIndex     uint64
	Liquidity       tlb.Uint128
	TickLower       tlb.Int24
	TickUpper       tlb.Int24
	LiquidityToBurn tlb.Uint128
}

// toncoPayToHead is the start of the router's ROUTERV3_PAY_TO: query_id
// receiver0 receiver1 exit_code:uint32 seqno:uint64 and the optional coins
// cell (amount0 jetton0_address amount1 jetton1_address ...). Exit code 201
// is a burn's payout, 200 a swap's, 0 a plain payment.
type toncoPayToHead struct {
	Op        uint32
	QueryID   uint64
	Receiver0 tlb.MsgAddress
	Receiver1 tlb.MsgAddress
	ExitCode  uint32
	Seqno     uint64
	Coins     *struct {
		Amount0 tlb.VarUInteger16
		Jetton0 tlb.MsgAddress
		Amount1 tlb.VarUInteger16
		Jetton1 tlb.MsgAddress
	} `tlb:"maybe^"`
}

// matchToncoWithdraw anchors at a Tonco pool told poolv3_start_burn by the
// owner of a position: the pool has the position NFT burn itself
// (position_burn), the NFT calls the pool back (poolv3_burn), and the pool
// has the router pay both assets out (pay_to with exit code 201), each a
// jetton transfer from the router's wallet (wTTON's wallet pays TON). Like
// toncenter, it needs the whole chain down to pay_to, and only pay_to's
// exit code decides the status.
func matchToncoWithdraw(c *classifier, s *node) bool {
	if !s.is(toncoStartBurnOp) {
		return false
	}
	var sb toncoStartBurnBody
	if !s.decode(&sb) {
		return false
	}
	pos := s.child(toncoPositionBurnOp)
	if pos == nil {
		return false
	}
	burn := pos.child(toncoPoolBurnOp)
	if burn == nil {
		return false
	}
	payTo := burn.child(abi.PayToMsgOpCode)
	if payTo == nil {
		return false
	}
	lower, upper := int64(sb.TickLower), int64(sb.TickUpper)
	liq := big.Int(sb.LiquidityToBurn)
	v := &DexWithdrawLiquidity{Dex: "tonco", Sender: Address(s.in().Source), Pool: Address(s.tx.Account),
		LpAmount: BigInt(liq.String()), BurntNftIndex: nano(sb.BurnedIndex), TickLower: &lower, TickUpper: &upper,
		BurntNft: Address(pos.tx.Account)}
	d := newDraft(v, s.in().Hash)
	d.claimSubtree(s)
	d.withInitiator(s)
	var pb toncoPositionBurnBody
	if pos.decode(&pb) && addr(pb.NftOwner) != "" {
		v.Sender = Address(addr(pb.NftOwner))
	}
	var bb toncoPoolBurnBody
	if burn.decode(&bb) && bb.BurnedIndex != 0 {
		v.BurntNftIndex = nano(bb.BurnedIndex)
	}
	var h toncoPayToHead
	decoded := payTo.decode(&h)
	d.ok = !decoded || h.ExitCode == 0 || h.ExitCode == 201
	var outs []liqMove
	for _, pay := range payTo.children {
		if m, found := c.paidOut(pay); found {
			outs = append(outs, m)
		}
	}
	if decoded && h.Coins != nil {
		outs = c.toncoPayToSides(outs, h, payTo.tx.Account)
	}
	v.setPaidOut(outs)
	c.add(d)
	return true
}

// toncoPayToSides completes and orders a withdrawal's payouts with what
// pay_to names: a side the router paid nothing we can follow for (no
// transfer, or one we could not read) is reported with the amount and the
// router wallet pay_to names, as toncenter does; the payouts then follow
// the pool's jetton0/jetton1 order.
func (c *classifier) toncoPayToSides(outs []liqMove, h toncoPayToHead, router string) []liqMove {
	sides := []struct {
		amt    tlb.VarUInteger16
		wallet string
	}{{h.Coins.Amount0, addr(h.Coins.Jetton0)}, {h.Coins.Amount1, addr(h.Coins.Jetton1)}}
	for _, side := range sides {
		if len(outs) >= 2 {
			break
		}
		paid := false
		for _, m := range outs {
			paid = paid || m.dexWallet == side.wallet
		}
		if !paid {
			master := c.masterOf(side.wallet)
			outs = append(outs, liqMove{asset: liquidityAsset(master), ton: liquidityPtonMasters[master],
				amount: amount(side.amt), dex: router, dexWallet: side.wallet})
		}
	}
	if len(outs) == 2 && outs[0].dexWallet != sides[0].wallet && outs[1].dexWallet == sides[0].wallet {
		outs[0], outs[1] = outs[1], outs[0]
	}
	return outs
}
