package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Each DEX's rules read what its own messages say about a swap: the
// amounts and wallets of the two transfers where toncenter takes them from
// the DEX's messages, the pools of a route, the target and the minimum out,
// and whether every pool swapped. Layouts are from toncenter's indexer
// (events/blocks/messages/swaps.py, coffee.py) and tongo's abi schemas.
func init() {
	dexRules["stonfi"] = stonfiV1Rules
	dexRules["stonfi_v2"] = stonfiV2Rules
	dexRules["tonco"] = toncoRules
	dexRules["dedust"] = dedustRules
	dexRules["coffee"] = coffeeRules
	dexReports["coffee"] = coffeeReported
	dexReports["dedust"] = dedustReported
	dexReports["stonfi"] = func(r *swapRoute) bool { return answeredRoute(r, abi.StonfiPaymentRequestMsgOpCode, false) }
	dexReports["stonfi_v2"] = func(r *swapRoute) bool { return answeredRoute(r, hopAnswers["stonfi_v2"], true) }
	dexReports["tonco"] = func(r *swapRoute) bool { return answeredRoute(r, hopAnswers["tonco"], true) }
}

// answeredRoute is the shape toncenter's STON.fi and Tonco matchers require
// of a swap (events/blocks/swaps.py): the asset came in by a jetton
// transfer (STON.fi v1 takes TON as a pTON transfer too) or, where tonIn,
// as TON through pTON v2's ton_transfer; every pool of the route answered
// the router (payment request, pay_to); and a jetton transfer (a pTON
// wallet's too) paid out. A route short of one of them is its transfers
// and calls.
func answeredRoute(r *swapRoute, answer abi.MsgOpCode, tonIn bool) bool {
	if r.in.leg == nil && !(tonIn && len(r.in.nodes) > 0 && r.in.nodes[0].is(abi.PtonTonTransferMsgOpCode)) {
		return false
	}
	for _, h := range r.hops {
		if childWith(h, answer) == nil {
			return false
		}
	}
	return r.found && r.out.nodes[0].is(abi.JettonTransferMsgOpCode)
}

// STON.fi v1 payment request exit codes: the swap went through, a referral
// payment, and the refunds for no liquidity and a reserve error.
const (
	stonfiSwapOK         = 0xc64370e5
	stonfiSwapRefOK      = 0x45078540
	stonfiSwapNoLiq      = 0x5ffe1295
	stonfiSwapReserveErr = 0x38976e9b
)

// isStonfiReferralPayment is a STON.fi v1 pool's payment request for the
// referral's fee: its payout is a transfer of its own, never the swap's,
// even when the swap pays someone other than its sender.
func isStonfiReferralPayment(n *node) bool {
	if !n.is(abi.StonfiPaymentRequestMsgOpCode) {
		return false
	}
	b, ok := bodyAs[abi.StonfiPaymentRequestMsgBody](n)
	return ok && b.ExitCode == stonfiSwapRefOK
}

// stonfiV1Payload is the forward payload of the transfer to the router:
// swap#25938561 token_wallet:MsgAddress min_out:Coins to_address:MsgAddress.
// token_wallet is the router's wallet of the asset asked for.
type stonfiV1Payload struct {
	Op     uint32
	Wallet tlb.MsgAddress
	MinOut tlb.VarUInteger16
	User   tlb.MsgAddress
}

func stonfiV1PayloadOf(s swapSide) (stonfiV1Payload, bool) {
	var v stonfiV1Payload
	if s.leg == nil || !unmarshalCell(forwardPayload(s.leg.send), &v) || v.Op != uint32(abi.StonfiSwapMsgOpCode) {
		return v, false
	}
	return v, true
}

// stonfiV1Rules: the pool's swap message names the real sender, the
// router's wallet that took the asset and the amount; the pool's payment
// requests name what is paid out (the sender's, or a refund; a referral's
// is smaller) and whether the swap went through.
func stonfiV1Rules(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts {
	f := swapFacts{ok: true}
	p := r.hops[0]
	user := ""
	if b, ok := bodyAs[abi.StonfiSwapMsgBody](p); ok {
		in.Amount = amount(b.JettonAmount)
		if u := addr(b.Addrs.FromUser); u != "" {
			in.Source = Address(u)
		}
		if w := addr(b.SenderAddress); w != "" {
			in.DestinationJettonWallet = Address(w)
			in.Destination = Address(p.in().Source)
			if o := c.ownerOf(w); o != "" {
				in.Destination = Address(o)
			}
			if m := c.masterOf(w); m != "" {
				in.Asset = Address(m)
			}
		}
		f.minOut = amount(b.MinOut)
		user = addr(b.ToAddress)
	}
	var best *big.Int
	var token string
	var exit uint32
	for _, ch := range p.children {
		b, ok := bodyAs[abi.StonfiPaymentRequestMsgBody](ch)
		if !ok || !ch.is(abi.StonfiPaymentRequestMsgOpCode) {
			continue
		}
		switch b.ExitCode {
		case stonfiSwapOK, stonfiSwapNoLiq, stonfiSwapReserveErr:
		default:
			continue
		}
		prm := b.Params.Value
		a, t := bigOf(prm.Amount0Out), prm.Token0Address
		if a.Sign() == 0 {
			a, t = bigOf(prm.Amount1Out), prm.Token1Address
		}
		if best == nil || a.Cmp(best) > 0 {
			best, token, exit = a, addr(t), b.ExitCode
		}
	}
	if best != nil {
		out.Amount = BigInt(best.String())
		if m := c.masterOf(token); m != "" {
			out.Asset = Address(m)
		}
		f.ok, f.decided = exit == stonfiSwapOK, true
	}
	pl, hasPayload := stonfiV1PayloadOf(r.in)
	if out.DestinationJettonWallet == "" && r.found {
		// TON paid through pTON: the user the request named.
		if u := addr(pl.User); hasPayload && u != "" {
			out.Destination = Address(u)
		} else if user != "" {
			out.Destination = Address(user)
		}
	}
	if w := addr(pl.Wallet); hasPayload && w != "" {
		f.targetWallet = Address(w)
		if m := c.masterOf(w); m != "" {
			f.target, f.targetKnown = Address(m), true
		}
	}
	return f
}

// stonfiCrossSwap is a STON.fi v2 swap's custom payload that continues the
// route at the next pool: cross_swap#69cf1a5b (or swap#6664de2a)
// ask_wallet:MsgAddress refund:MsgAddress excesses:MsgAddress
// deadline:uint64 ^[min_out:Coins receiver:MsgAddress fwd_gas:Coins
// custom_payload:(Maybe ^Cell) ...].
type stonfiCrossSwap struct {
	Op        uint32
	AskWallet tlb.MsgAddress
	Refund    tlb.MsgAddress
	Excesses  tlb.MsgAddress
	Deadline  uint64
	Body      struct {
		MinOut   tlb.VarUInteger16
		Receiver tlb.MsgAddress
		FwdGas   tlb.Grams
		Custom   *tlb.Any `tlb:"maybe^"`
	} `tlb:"^"`
}

// stonfiV2Rules: each pool answers with pay_to, whose exit code says
// whether it swapped and whose amounts say what it paid out; the route's
// target is the ask wallet of the last cross swap the first request names.
func stonfiV2Rules(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts {
	f := swapFacts{ok: true}
	type payTo struct {
		ok     bool
		amount *big.Int
		token  string
	}
	pays := make([]payTo, len(r.hops))
	for i, h := range r.hops {
		var b abi.StonfiPayToV2MsgBody
		ok := false
		if pt := childWith(h, abi.StonfiPayToV2MsgOpCode); pt != nil {
			b, ok = bodyAs[abi.StonfiPayToV2MsgBody](pt)
		}
		if ok && b.ExitCode != stonfiSwapOK {
			f.ok = false
		}
		if ok {
			f.decided = true
			info := b.AdditionalInfo
			a0, a1 := bigOf(info.Amount0Out), bigOf(info.Amount1Out)
			pays[i] = payTo{ok: b.ExitCode == stonfiSwapOK, amount: a0, token: addr(info.Token0Address)}
			if a1.Cmp(a0) > 0 {
				pays[i].amount, pays[i].token = a1, addr(info.Token1Address)
			}
		}
	}
	f.peers = routePeers(c, in, pays[0].amount, pays[0].token, pays[0].ok, len(r.hops), func(i int) (*big.Int, string, bool) {
		return pays[i].amount, pays[i].token, pays[i].ok
	})
	if len(r.out.nodes) > 1 {
		if b, ok := bodyAs[abi.PtonTonTransferMsgBody](r.out.nodes[len(r.out.nodes)-1]); ok {
			out.Amount = nano(uint64(b.TonAmount))
		}
	}
	if b, ok := bodyAs[abi.StonfiSwapV2MsgBody](r.hops[len(r.hops)-1]); ok {
		f.minOut = amount(b.DexPayload.SwapBody.MinOut)
	}
	if b, ok := bodyAs[abi.StonfiSwapV2MsgBody](r.hops[0]); ok {
		target := addr(b.DexPayload.TokenWallet1)
		next := b.DexPayload.SwapBody.CustomPayload
		for depth := 0; next != nil && depth < 8; depth++ {
			var cs stonfiCrossSwap
			cell := boc.Cell(*next)
			if !unmarshalCell(&cell, &cs) || cs.Op != 0x69cf1a5b && cs.Op != uint32(abi.StonfiSwapV2MsgOpCode) {
				break
			}
			if w := addr(cs.AskWallet); w != "" {
				target = w
			}
			next = cs.Body.Custom
		}
		if target != "" {
			f.targetWallet = Address(target)
			if m := c.masterOf(target); m != "" {
				f.target, f.targetKnown = Address(m), true
			}
		}
	}
	return f
}

// routePeers builds one entry per pool: the first takes the asset that came
// in, each next one what the previous paid out; a pool's output is the
// larger of the two amounts its answer names, and its asset the master of
// the DEX wallet named with it. Pools after one that did not swap are left
// out.
func routePeers(c *classifier, in *SwapTransfer, amt *big.Int, token string, ok bool, hops int, hop func(int) (*big.Int, string, bool)) []PeerSwap {
	if hops < 2 || amt == nil {
		return nil
	}
	asset := func(w string) Address { return Address(c.masterOf(w)) }
	peers := []PeerSwap{{AssetIn: in.Asset, AmountIn: in.Amount, AssetOut: asset(token), AmountOut: BigInt(amt.String())}}
	if !ok {
		return peers
	}
	for i := 1; i < hops; i++ {
		a, t, hopOK := hop(i)
		if a == nil || !hopOK {
			continue
		}
		prev := peers[len(peers)-1]
		peers = append(peers, PeerSwap{AssetIn: prev.AssetOut, AmountIn: prev.AmountOut, AssetOut: asset(t), AmountOut: BigInt(a.String())})
	}
	return peers
}

// toncoPayTo is the router's pay_to the pool sends back (routerv3_pay_to):
// query_id reciever0 reciever1 exit_code:uint32 seqno:uint64
// coinsinfo:(Maybe ^[amount0 jetton0 amount1 jetton1 ...]). Exit code 0 or
// 200 is a swap that went through.
type toncoPayTo struct {
	Op      uint32
	QueryID uint64
	R0, R1  tlb.MsgAddress
	Exit    uint32
	Seqno   uint64
	Coins   *struct {
		Amount0 tlb.VarUInteger16
		Jetton0 tlb.MsgAddress
		Amount1 tlb.VarUInteger16
		Jetton1 tlb.MsgAddress
	} `tlb:"maybe^"`
}

// toncoSwapPayload is the request the user sends with the asset:
// poolv3_swap#a7fb58f8 target_wallet:MsgAddress price_limit:uint160
// min_out:Coins recipient:MsgAddress next:(Maybe ^Cell), next being the
// request for the following pool. target_wallet is the router's wallet of
// the asset asked for.
type toncoSwapPayload struct {
	Op         uint32
	Target     tlb.MsgAddress
	PriceLimit tlb.Uint160
	MinOut     tlb.VarUInteger16
	Recipient  tlb.MsgAddress
	Next       *tlb.Any `tlb:"maybe^"`
}

func toncoRules(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts {
	f := swapFacts{ok: true}
	type payTo struct {
		ok     bool
		amount *big.Int
		token  string
	}
	pays := make([]payTo, len(r.hops))
	for i, h := range r.hops {
		var b toncoPayTo
		ok := false
		if pt := childWith(h, abi.PayToMsgOpCode); pt != nil {
			ok = pt.decode(&b)
		}
		swapped := ok && (b.Exit == 0 || b.Exit == 200)
		if ok && !swapped {
			f.ok = false
		}
		f.decided = f.decided || ok
		if ok && b.Coins != nil {
			a0, a1 := bigOf(b.Coins.Amount0), bigOf(b.Coins.Amount1)
			pays[i] = payTo{ok: swapped, amount: a0, token: addr(b.Coins.Jetton0)}
			if a1.Cmp(a0) > 0 {
				pays[i].amount, pays[i].token = a1, addr(b.Coins.Jetton1)
			}
		}
	}
	f.peers = routePeers(c, in, pays[0].amount, pays[0].token, pays[0].ok, len(r.hops), func(i int) (*big.Int, string, bool) {
		return pays[i].amount, pays[i].token, pays[i].ok
	})
	if b, ok := bodyAs[abi.Poolv3SwapMsgBody](r.hops[len(r.hops)-1]); ok {
		f.minOut = amount(b.ParamsCell.MinOutAmount)
	}
	// The request's route: its last target and minimum.
	var payload *boc.Cell
	if r.in.leg != nil {
		payload = forwardPayload(r.in.leg.send)
	} else if len(r.in.nodes) > 0 {
		if b, ok := bodyAs[abi.PtonTonTransferMsgBody](r.in.nodes[0]); ok {
			cell := boc.Cell(b.ForwardPayload.Value)
			payload = &cell
		}
	}
	for depth := 0; payload != nil && depth < 8; depth++ {
		var sp toncoSwapPayload
		if !unmarshalCell(payload, &sp) || sp.Op != uint32(abi.Poolv3SwapMsgOpCode) {
			break
		}
		if w := addr(sp.Target); w != "" {
			f.targetWallet = Address(w)
			f.target, f.targetKnown = Address(c.masterOf(w)), c.masterOf(w) != ""
			f.minOut = amount(sp.MinOut)
		}
		if sp.Next == nil {
			break
		}
		cell := boc.Cell(*sp.Next)
		payload = &cell
	}
	return f
}

// dedustSwapEvent is the log (dedustAsset and coffeeAsset are in the
// liquidity files) a DeDust pool writes when it swapped:
// swap#9c610de3 asset_in:Asset asset_out:Asset amount_in:Coins
// amount_out:Coins ^[...].
type dedustSwapEvent struct {
	Op        uint32
	AssetIn   abi.DedustAsset
	AssetOut  abi.DedustAsset
	AmountIn  tlb.VarUInteger16
	AmountOut tlb.VarUInteger16
}

// dedustJettonPayload is the forward payload of a jetton sent to a DeDust
// vault to swap: swap#e3a0d482 step:SwapStep swap_params:^SwapParams.
type dedustJettonPayload struct {
	Op   uint32
	Step abi.DedustSwapStep
}

const dedustJettonSwapOp = 0xe3a0d482

// dedustReported: toncenter's DeDust swap (events/blocks/swaps.py) is
// asked for by swap#ea06185d at the native vault, or by the notification
// of a jetton transfer whose forward payload is swap#e3a0d482 (a transfer
// with another payload is no swap, whatever the vault did next); and the
// route ends with the last pool's payout_from_pool making a vault pay
// (payout, or a jetton transfer). A route short of either is its transfers
// and calls.
func dedustReported(r *swapRoute) bool {
	first := r.hops[0]
	if !first.parent.is(abi.DedustSwapMsgOpCode) {
		var pl struct{ Op uint32 }
		if r.in.leg == nil || r.in.leg.notify != first.parent ||
			!unmarshalCell(forwardPayload(r.in.leg.send), &pl) || pl.Op != dedustJettonSwapOp {
			return false
		}
	}
	return r.found && r.out.nodes[0].parent.is(abi.DedustPayoutFromPoolMsgOpCode)
}

// dedustRules: every pool of the route (swap_external, then swap_peer)
// logs the swap it made; one without a log did not swap. The logs are what
// toncenter reports: the first pool's asset and amount in are the incoming
// transfer's, the last logged pool's out the outgoing transfer's (they name
// the assets even where the jetton wallets are unknown); without any log
// (a refund) the transfers are the legs themselves. The request's steps
// name the pools, whose assets give the asset asked for; the last step's
// limit is the minimum out.
func dedustRules(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts {
	f := swapFacts{ok: true, decided: true}
	for _, h := range r.hops {
		logs := extOuts(h, abi.DedustSwapExtOutMsgOpCode)
		if len(logs) == 0 {
			f.ok = false
		}
		for _, b := range logs {
			var e dedustSwapEvent
			if decodePrefix(b, &e) {
				f.peers = append(f.peers, PeerSwap{AssetIn: Address(dedustAsset(e.AssetIn)), AmountIn: amount(e.AmountIn),
					AssetOut: Address(dedustAsset(e.AssetOut)), AmountOut: amount(e.AmountOut)})
			}
		}
	}
	if len(f.peers) > 0 {
		first, last := f.peers[0], f.peers[len(f.peers)-1]
		in.Asset, in.Amount = first.AssetIn, first.AmountIn
		if r.found {
			out.Asset, out.Amount = last.AssetOut, last.AmountOut
		}
	}
	var step *abi.DedustSwapStep
	if r.in.leg != nil {
		var pl dedustJettonPayload
		if unmarshalCell(forwardPayload(r.in.leg.send), &pl) && pl.Op == dedustJettonSwapOp {
			step = &pl.Step
		}
	} else if len(r.in.nodes) > 0 {
		if b, ok := bodyAs[abi.DedustSwapMsgBody](r.in.nodes[0]); ok {
			step = &b.Step
		}
	}
	// The asset in must be known to tell which of a pool's two assets is
	// the other one (TON in is known: the empty asset).
	prev, known := in.Asset, r.in.leg == nil || in.Asset != ""
	for depth := 0; step != nil && depth < 8; depth++ {
		if !step.Params.KindOut {
			f.minOut = amount(step.Params.Limit)
		}
		k, ok := c.known[addr(step.PoolAddr)]
		if !ok || len(k.Assets) != 2 {
			known = false
		} else if known {
			next := k.Assets[0]
			if Address(next) == prev {
				next = k.Assets[1]
			}
			prev = Address(next)
		}
		step = step.Params.Next
	}
	if known && prev != in.Asset {
		f.target, f.targetKnown = prev, true
	}
	return f
}

// coffeeReported: toncenter reports a Coffee swap only when the first
// pool was asked by the vault that took the asset in (a jetton
// notification, or swap#c0ffee00 with TON), every pool of the route logged
// swap_successful_event, and something was paid out. A pool that failed
// (it logs swap_failed_event#c0ffee31 and the vault refunds) makes no swap:
// its legs and calls are reported as such.
func coffeeReported(r *swapRoute) bool {
	if !r.hops[0].parent.is(abi.JettonNotifyMsgOpCode, abi.CoffeeSwapMsgOpCode) {
		return false
	}
	for _, h := range r.hops {
		if len(extOuts(h, abi.CoffeeSwapSucceededExtOutMsgOpCode)) == 0 {
			return false
		}
	}
	return r.found
}

// coffeeSwapEvent is the log a Coffee pool writes when it swapped:
// swap_successful_event#c0ffee30 query_id:uint64 input:Asset
// input_amount:Coins output_amount:Coins ...
type coffeeSwapEvent struct {
	Op        uint32
	QueryID   uint64
	Input     abi.CoffeeAsset
	InAmount  tlb.VarUInteger16
	OutAmount tlb.VarUInteger16
}

// coffeeRules: every pool of the route logged the swap it made (input
// asset and both amounts; coffeeReported let no other route through). The
// pool that paid TON out is the source toncenter names (it asked the vault
// to pay).
func coffeeRules(c *classifier, r *swapRoute, in, out *SwapTransfer) swapFacts {
	f := swapFacts{ok: true, decided: true}
	for _, h := range r.hops {
		for _, b := range extOuts(h, abi.CoffeeSwapSucceededExtOutMsgOpCode) {
			var e coffeeSwapEvent
			if decodePrefix(b, &e) {
				f.peers = append(f.peers, PeerSwap{AssetIn: Address(coffeeAsset(e.Input)), AmountIn: amount(e.InAmount), AmountOut: amount(e.OutAmount)})
			}
		}
	}
	for i := range f.peers {
		if i+1 < len(f.peers) {
			f.peers[i].AssetOut = f.peers[i+1].AssetIn
		} else {
			f.peers[i].AssetOut = out.Asset
		}
	}
	if len(r.out.nodes) == 1 && r.out.nodes[0].is(abi.CoffeePayoutMsgOpCode) {
		if vault := r.out.nodes[0].parent; vault != nil {
			if b, ok := bodyAs[abi.CoffeePayoutInternalMsgBody](vault); ok {
				out.Source = Address(vault.in().Source)
				if u := addr(b.Recipient); u != "" {
					out.Destination = Address(u)
				}
			}
		}
	}
	if b, ok := bodyAs[abi.CoffeeSwapInternalMsgBody](r.hops[len(r.hops)-1]); ok {
		f.minOut = nano(uint64(b.Field1.MinOutputAmount))
	}
	return f
}
