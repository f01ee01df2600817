package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// DexWithdrawLiquidity: LP jettons (or a Tonco position) given back to a
// DEX pool for the assets they stand for.
type DexWithdrawLiquidity struct {
	Dex               Text    `json:"dex,omitempty" tc:"dex" doc:"dedust, stonfi_v2, coffee or tonco"`
	Sender            Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who withdrew: the owner of the LP jettons or of the position"`
	LpWallet          Address `json:"lp_wallet,omitempty" role:"source" doc:"the sender's LP jetton wallet that burnt them; absent for Tonco and refunds"`
	Pool              Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the pool that paid out (the LP jettons' master for DeDust, STON.fi and Coffee)"`
	LpMaster          Address `json:"lp_master,omitempty" role:"master" doc:"the LP jetton burnt (its master, the pool itself for DeDust, STON.fi and Coffee), when known; absent for Tonco"`
	LpAmount          BigInt  `json:"lp_amount,omitempty" tc:"lp_tokens_burnt" doc:"LP jettons burnt (Tonco: the position's liquidity burnt)"`
	IsRefund          *bool   `json:"is_refund,omitempty" tc:"is_refund" doc:"true when STON.fi paid back a deposit held in the user's LP account (refund_me) instead of burning LP jettons"`
	Asset1            Address `json:"asset_1,omitempty" role:"master" tc:"asset_1" doc:"first asset paid out (jetton master; absent for TON or when unknown)"`
	Amount1           BigInt  `json:"amount_1,omitempty" tc:"amount_1" doc:"amount of the first asset paid out"`
	UserJettonWallet1 Address `json:"user_jetton_wallet_1,omitempty" role:"destination" tc:"user_jetton_wallet_1" doc:"the jetton wallet that received the first asset; absent for TON"`
	DexWallet1        Address `json:"dex_wallet_1,omitempty" doc:"the DEX contract that paid the first asset (vault or router)"`
	DexJettonWallet1  Address `json:"dex_jetton_wallet_1,omitempty" doc:"that contract's jetton wallet; absent for TON"`
	Asset2            Address `json:"asset_2,omitempty" role:"master" tc:"asset_2" doc:"second asset paid out"`
	Amount2           BigInt  `json:"amount_2,omitempty" tc:"amount_2" doc:"amount of the second asset paid out"`
	UserJettonWallet2 Address `json:"user_jetton_wallet_2,omitempty" role:"destination" tc:"user_jetton_wallet_2" doc:"the jetton wallet that received the second asset"`
	DexWallet2        Address `json:"dex_wallet_2,omitempty" doc:"the DEX contract that paid the second asset"`
	DexJettonWallet2  Address `json:"dex_jetton_wallet_2,omitempty" doc:"that contract's jetton wallet"`
	BurntNft          Address `json:"burnt_nft,omitempty" role:"contract" tc:"burnt_nft_address" doc:"Tonco: the position NFT burnt"`
	BurntNftIndex     BigInt  `json:"burnt_nft_index,omitempty" tc:"burnt_nft_index" doc:"Tonco: index of the position NFT"`
	TickLower         *int64  `json:"tick_lower,omitempty" tc:"tick_lower" doc:"Tonco: lower tick of the position"`
	TickUpper         *int64  `json:"tick_upper,omitempty" tc:"tick_upper" doc:"Tonco: upper tick of the position"`
}

func init() {
	declare(Type{Value: DexWithdrawLiquidity{}, Title: "Liquidity withdrawal", Describe: describeAs(func(v *DexWithdrawLiquidity, w *Words) string {
		s := "Withdrew " + w.and(if1(v.Amount1 != "", w.Asset(v.Asset1, v.Amount1)), if1(v.Amount2 != "", w.Asset(v.Asset2, v.Amount2))) +
			" from the " + w.Dex(v.Dex) + " pool " + w.Account(v.Pool)
		switch {
		case v.LpMaster != "":
			s += " for " + w.Jetton(v.LpMaster, v.LpAmount)
		case v.LpAmount != "":
			// A position without an LP jetton (TONCO's NFT): its liquidity units.
			s += ", burning " + string(v.LpAmount) + " units of liquidity"
		}
		return s
	}),
		Toncenter: "dex_withdraw_liquidity",
		Protocols: "DeDust, STON.fi v2, Coffee, Tonco",
		Doc:       "DeDust, STON.fi v2 and Coffee: burn (0x595f07bc) at the user's LP wallet, the pool's burn notification, then one payout per asset (DeDust payout_from_pool 0xad4eb6f5 to a vault, STON.fi pay_to 0x657b54f5 to the router, Coffee payout_internal 0xc0ffee21 to a vault) ending in a jetton transfer or TON to the user. STON.fi's refund_me (0x132b9a2c) from an LP account pays back a held deposit the same way. Tonco: poolv3_start_burn (0x530b5f2c) at the pool, position_burn at the NFT, poolv3_burn back at the pool, pay_to (0xa1daa96d, exit code 201) at the router and its payouts. Assets are in the pool's order.",
		Failed:    "as toncenter has it: Tonco, the router's pay_to reports an exit code other than 0 or 201; never for the others (a burn without the payouts toncenter requires is a JettonBurn)",
		Differs:   "toncenter's is_refund is false rather than absent for DeDust, Coffee and Tonco; its Coffee dex_wallet_1/2 is the pool (the payout request's sender), ours the vault that paid."})
	addMatcher(OrderProtocol+30, "DexWithdrawLiquidity/burn", matchBurnWithdraw)
	addMatcher(OrderProtocol+31, "DexWithdrawLiquidity/stonfi_refund", matchStonfiRefundWithdraw)
	addMatcher(OrderProtocol+32, "DexWithdrawLiquidity/tonco", matchToncoWithdraw)
}

// matchBurnWithdraw anchors at an LP wallet told to burn whose master (the
// pool) answers the burn notification with payouts: DeDust (burn_notification
// then payout_from_pool to each vault), Coffee (burn_notification then
// payout_internal to each vault) and STON.fi v2 (burn_notification_ext then
// pay_to to the router). A pool that failed is still recognized by its
// notification (STON.fi) or by what the indexer knows of it (DeDust).
func matchBurnWithdraw(c *classifier, n *node) bool {
	if !n.is(abi.JettonBurnMsgOpCode) {
		return false
	}
	burnt, ok := burnAmount(n)
	if !ok {
		return false
	}
	note := n.child(abi.JettonBurnNotificationMsgOpCode, abi.StonfiBurnNotificationExtV2MsgOpCode)
	if note == nil {
		return false
	}
	// The payouts toncenter requires: STON.fi at least one pay_to paying
	// something, DeDust and Coffee one payout per asset.
	var dex string
	var payOp abi.MsgOpCode
	need := 2
	switch {
	case note.is(abi.StonfiBurnNotificationExtV2MsgOpCode):
		dex, payOp, need = "stonfi_v2", abi.StonfiPayToV2MsgOpCode, 1
	case note.child(abi.DedustPayoutFromPoolMsgOpCode) != nil:
		dex, payOp = "dedust", abi.DedustPayoutFromPoolMsgOpCode
	case note.child(abi.CoffeePayoutInternalMsgOpCode) != nil:
		dex, payOp = "coffee", abi.CoffeePayoutInternalMsgOpCode
	default:
		return false
	}
	outs := c.withdrawPayouts(note, payOp)
	if len(outs) < need {
		return false
	}
	sender := n.in().Source
	refund := false
	v := &DexWithdrawLiquidity{Dex: Text(dex), Sender: Address(sender), LpWallet: Address(n.tx.Account),
		Pool: Address(note.tx.Account), LpMaster: Address(note.tx.Account), LpAmount: burnt}
	if dex == "stonfi_v2" {
		v.IsRefund = &refund
	}
	d := newDraft(v, n.in().Hash)
	d.claimSubtree(n)
	d.withInitiator(n)
	v.setPaidOut(outs)
	c.add(d)
	return true
}

// burnAmount reads the amount of a burn request; a custom payload the full
// schema rejects leaves the fixed head (query_id, amount) readable.
func burnAmount(n *node) (BigInt, bool) {
	if b, ok := bodyAs[abi.JettonBurnMsgBody](n); ok {
		return amount(b.Amount), true
	}
	var head struct {
		Op      uint32
		QueryID uint64
		Amount  tlb.VarUInteger16
	}
	if !n.decode(&head) {
		return "", false
	}
	return amount(head.Amount), true
}

// matchStonfiRefundWithdraw anchors at a STON.fi v2 pool told cb_refund_me
// (0x0f98e2b8) by an LP account the user asked to refund_me (0x132b9a2c):
// the pool pays back, through the router, what the account held of a
// deposit that never completed.
func matchStonfiRefundWithdraw(c *classifier, p *node) bool {
	if !p.is(stonfiCbRefundMeOp) || p.parent == nil || !p.parent.is(stonfiRefundMeOp) {
		return false
	}
	outs := c.withdrawPayouts(p, abi.StonfiPayToV2MsgOpCode)
	if len(outs) == 0 {
		return false
	}
	account := p.parent
	refund := true
	v := &DexWithdrawLiquidity{Dex: "stonfi_v2", Sender: Address(account.in().Source), Pool: Address(p.tx.Account), IsRefund: &refund}
	d := newDraft(v, account.in().Hash)
	d.claimSubtree(account)
	d.withInitiator(account)
	v.setPaidOut(outs)
	c.add(d)
	return true
}

// STON.fi v2 op codes tongo's abi lacks (dex-core-v2 contracts/common/op.fc,
// as toncenter's indexer matches them): the user's refund_me to the LP
// account and the account's cb_refund_me to the pool.
const (
	stonfiRefundMeOp   abi.MsgOpCode = 0x132b9a2c
	stonfiCbRefundMeOp abi.MsgOpCode = 0x0f98e2b8
)

// withdrawPayouts reads the pool's payouts: each message with payOp the
// pool sent (to a vault or the router) that the contract answered with a
// payment, in the order the pool sent them (its asset order). A request
// that paid nothing is left out: toncenter's matchers need the payment.
// DeDust's and Coffee's amount is the one the request names, not a TON
// payout's value, which also returns gas; STON.fi's is what the router's
// transfer moved (a pTON wallet pays TON), as toncenter reads it.
func (c *classifier) withdrawPayouts(pool *node, payOp abi.MsgOpCode) []liqMove {
	var out []liqMove
	for _, req := range pool.children {
		if !req.is(payOp) {
			continue
		}
		for _, pay := range req.children {
			if m, ok := c.paidOut(pay); ok {
				if amt := payoutAmount(req); amt != "" {
					m.amount = amt
				}
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// payoutAmount is the amount a DeDust or Coffee payout request names.
func payoutAmount(req *node) BigInt {
	if b, ok := bodyAs[abi.DedustPayoutFromPoolMsgBody](req); ok {
		return amount(b.Amount)
	}
	if b, ok := bodyAs[abi.CoffeePayoutInternalMsgBody](req); ok {
		return nano(uint64(b.Amount))
	}
	return ""
}

// setPaidOut fills the assets paid out (at most two) of a value.
func (v *DexWithdrawLiquidity) setPaidOut(ms []liqMove) {
	if len(ms) > 0 {
		m := ms[0]
		v.Asset1, v.Amount1, v.UserJettonWallet1 = Address(m.asset), m.amount, Address(m.userWallet)
		v.DexWallet1, v.DexJettonWallet1 = Address(m.dex), Address(m.dexWallet)
	}
	if len(ms) > 1 {
		m := ms[1]
		v.Asset2, v.Amount2, v.UserJettonWallet2 = Address(m.asset), m.amount, Address(m.userWallet)
		v.DexWallet2, v.DexJettonWallet2 = Address(m.dex), Address(m.dexWallet)
	}
}
