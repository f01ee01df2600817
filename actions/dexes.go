package actions

import (
	"github.com/tonkeeper/tongo/abi"
)

// Pools are recognized by the message that asks them to swap. Coffee's
// vaults take the asset in and ask the pool with swap_internal (also how
// one Coffee pool hands its output to the next); Tonco's router asks the
// pool with poolv3_swap.
var poolOps = map[uint32]string{
	uint32(abi.StonfiSwapMsgOpCode):         "stonfi",
	uint32(abi.StonfiSwapV2MsgOpCode):       "stonfi_v2",
	uint32(abi.DedustSwapExternalMsgOpCode): "dedust",
	uint32(abi.CoffeeSwapInternalMsgOpCode): "coffee",
	uint32(abi.Poolv3SwapMsgOpCode):         "tonco",
}

func isPoolRequest(n *node) bool {
	_, ok := poolOps[n.op]
	return ok && n.is(abi.MsgOpCode(n.op))
}

// isPayout is a DEX vault paying TON out (DeDust payout, Coffee payout):
// it reaches whoever the swap named, not necessarily who sent the asset.
func isPayout(n *node) bool {
	return n.is(abi.DedustPayoutMsgOpCode, abi.CoffeePayoutMsgOpCode)
}

// tonIn is the TON a user sent into a DEX: the amount the request names
// (the message value also pays for gas), else the value.
func tonIn(n *node) uint64 {
	if b, ok := bodyAs[abi.DedustSwapMsgBody](n); ok {
		return uint64(b.Amount)
	}
	if b, ok := bodyAs[abi.PtonTonTransferMsgBody](n); ok {
		return uint64(b.TonAmount)
	}
	if b, ok := bodyAs[abi.CoffeeSwapMsgBody](n); ok {
		return uint64(b.Amount)
	}
	return n.in().Value
}

// tonOut is the TON a DEX paid out: Coffee's vault carries the swapped
// amount in the pool's payout_internal (the payout's value adds the gas
// left over), others pay the amount as the value.
func tonOut(n *node) uint64 {
	if n.parent != nil {
		if b, ok := bodyAs[abi.CoffeePayoutInternalMsgBody](n.parent); ok {
			return uint64(b.Amount)
		}
	}
	return n.in().Value
}
