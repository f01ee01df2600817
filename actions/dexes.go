package actions

import (
	"fmt"
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
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

func isPoolRequest(n *node) bool { return poolDex(n) != "" }

// poolDex names the DEX whose pool n's in-message asks to swap, "" when
// it is no such request. Besides the op codes of poolOps: a Bidask range's
// internal_swap (recognized by the range's answer, as Bidask's v2 pool
// request shares its op code), and a MoonCX pool's swap (TON sent with
// moon_swap, or jettons whose notification carries moon_swap).
func poolDex(n *node) string {
	if d, ok := poolOps[n.op]; ok && n.is(abi.MsgOpCode(n.op)) {
		return d
	}
	switch {
	case n.is(abi.BidaskInternalSwapMsgOpCode, abi.BidaskInternalSwapV2MsgOpCode) && isBidaskRange(n):
		return "bidask"
	case n.is(abi.MoonSwapMsgOpCode), n.is(abi.JettonNotifyMsgOpCode) && notifyPayloadOp(n) == uint32(abi.MoonSwapMsgOpCode):
		return "mooncx"
	}
	return ""
}

// isPeerHop is a pool handing its output to the next pool of a route
// itself (DeDust's swap_peer): a hop, never the start of a swap.
func isPeerHop(n *node) bool { return n.is(abi.DedustSwapPeerMsgOpCode) }

// isPayout is a DEX vault paying TON out (DeDust payout, Coffee payout, or
// Coffee's notification#c0ffee36 when the swap asked to notify the
// recipient): it reaches whoever the swap named, not necessarily who sent
// the asset.
func isPayout(n *node) bool {
	return n.is(abi.DedustPayoutMsgOpCode, abi.CoffeePayoutMsgOpCode, abi.CoffeeNotificationMsgOpCode,
		abi.BidaskNativeTransferNotificationMsgOpCode, abi.MoonSwapSucceedMsgOpCode)
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
	if b, ok := bodyAs[abi.MoonSwapMsgBody](n); ok && n.is(abi.MoonSwapMsgOpCode) {
		if a := bigOf(b.Amount); a.IsUint64() {
			return a.Uint64()
		}
	}
	if n.is(abi.BidaskSwapMsgOpCode, abi.BidaskSwapV2MsgOpCode) {
		// bidask_swap query_id:uint64 native_amount:Coins ... (both versions)
		var h struct {
			Op      uint32
			QueryID uint64
			Amount  tlb.Grams
		}
		if n.decode(&h) {
			return uint64(h.Amount)
		}
	}
	return n.in().Value
}

// tonOut is the TON a DEX paid out: the amount the pool told the vault to
// pay (Coffee's payout_internal, DeDust's payout_from_pool; the payout's
// value adds the gas left over), else the value. Coffee's notification is
// its value, as toncenter reports it (the recipient's contract gets it all).
func tonOut(n *node) uint64 {
	if n.parent != nil && !n.is(abi.CoffeeNotificationMsgOpCode) {
		if b, ok := bodyAs[abi.CoffeePayoutInternalMsgBody](n.parent); ok {
			return uint64(b.Amount)
		}
		if b, ok := bodyAs[abi.DedustPayoutFromPoolMsgBody](n.parent); ok && n.is(abi.DedustPayoutMsgOpCode) {
			if a := bigOf(b.Amount); a.IsUint64() {
				return a.Uint64()
			}
		}
	}
	if b, ok := bodyAs[abi.BidaskNativeTransferNotificationMsgBody](n); ok && n.is(abi.BidaskNativeTransferNotificationMsgOpCode) {
		return uint64(b.NativeAmount)
	}
	return n.in().Value
}

// ptonMasters are the jetton masters of TON wrapped as a jetton: STON.fi's
// pTON v1 and v2 and Tonco's wTTON (the list toncenter's indexer keeps in
// events/blocks/jettons.py).
var ptonMasters = map[Address]bool{
	"0:8CDC1D7640AD5EE326527FC1AD0514F468B30DC84B0173F0E155F451B4E11F7C": true,
	"0:671963027F7F85659AB55B821671688601CDCF1EE674FC7FBBB1A776A18D34A3": true,
	"0:949C4C66760C002800E2FA3D8A3CA4E1C90A9373B53AE7472033483BF14CD95E": true,
}

// tonWrapped are the DEXes whose swaps report wrapped TON as TON (absent
// asset); STON.fi v1's swaps name the pTON master, as toncenter does.
var tonWrapped = map[string]bool{"stonfi_v2": true, "tonco": true}

func unwrapTON(a Address) Address {
	if ptonMasters[a] {
		return ""
	}
	return a
}

// dexRules refine a swap's transfers from the DEX's own messages, per DEX.
var dexRules = map[string]func(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts{}

// dexReports says, per DEX, whether a route is one toncenter reports as a
// swap at all; a DEX without an entry always is. A route it would not
// report is left to the other matchers (its legs are jetton transfers,
// its steps contract calls).
var dexReports = map[string]func(r *swapRoute) bool{}

// extOuts are the bodies of the external out-messages (logs) of n's
// transaction with the op code.
func extOuts(n *node, op abi.MsgOpCode) [][]byte {
	var out [][]byte
	for i := range n.tx.OutMsgs {
		m := &n.tx.OutMsgs[i]
		if m.Destination == "" && m.Opcode != nil && *m.Opcode == uint32(op) {
			out = append(out, m.Body)
		}
	}
	return out
}

// childWith is the first child of n (used or not) whose in-message has the
// op code and is not a bounce.
func childWith(n *node, op abi.MsgOpCode) *node {
	for _, c := range n.children {
		if c.is(op) {
			return c
		}
	}
	return nil
}

// rawAddr is a workchain and a 256-bit account as a raw address.
func rawAddr(wc int, hash []byte) Address {
	return Address(fmt.Sprintf("%d:%X", wc, hash))
}

func bigOf(v tlb.VarUInteger16) *big.Int {
	b := big.Int(v)
	return &b
}
