package actions_test

import (
	"math/big"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("DexWithdrawLiquidity", 1, 1)
}

// stonfiPayTo is the router's pay_to from the pool: one asset of a
// withdrawal (STON.fi dex-core-v2 pays each asset with its own pay_to).
func stonfiPayTo(t testing.TB, a0, a1 uint64, exit uint32) []byte {
	var b abi.StonfiPayToV2MsgBody
	b.ToAddress, b.ExcessesAddress, b.OriginalCaller = liqMsgAddr(stWallet), liqMsgAddr(stWallet), liqMsgAddr(stWallet)
	b.ExitCode = exit
	b.AdditionalInfo.Amount0Out, b.AdditionalInfo.Amount1Out = tlb.VarUInteger16(*bigU(a0)), tlb.VarUInteger16(*bigU(a1))
	b.AdditionalInfo.Token0Address, b.AdditionalInfo.Token1Address = liqMsgAddr(stRouterJA), liqMsgAddr(stPton)
	return liqBody(t, uint32(abi.StonfiPayToV2MsgOpCode), b)
}

// stonfiPayouts: the pool has the router pay 100 jetton A (through the
// router's A wallet to the user's) and 50 TON (through pTON).
func stonfiPayouts(t testing.TB) []*liqTx {
	const burnOK = 0xdda48b6a // any code: the indexer does not read it
	return []*liqTx{
		liqT(stRouter, 200_000_000, stonfiPayTo(t, 100, 0, burnOK),
			liqT(stRouterJA, 190_000_000, liqJettonTransfer(t, 100, stWallet, stWallet),
				liqT(stUserJA, 180_000_000, liqInternalTransfer(t, 100, stRouter),
					liqT(stWallet, 10_000_000, liqExcess(t))))),
		liqT(stRouter, 200_000_000, stonfiPayTo(t, 0, 50, burnOK),
			liqT(stPton, 190_000_000, liqJettonTransfer(t, 50, stWallet, stWallet),
				liqT(stWallet, 180_000_050, liqPtonTransfer(t, 50, stWallet)))),
	}
}

func TestStonfiV2Withdraw(t *testing.T) {
	t.Run("burn", func(t *testing.T) {
		// Right: burn of 70 LP at the user's LP wallet, burn_notification_ext
		// at the pool (the LP master), two pay_to to the router; asset 1
		// jetton A 100 into the user's A wallet from the router's A wallet,
		// asset 2 TON 50 from the router's pTON wallet. Not a refund.
		var note abi.StonfiBurnNotificationExtV2MsgBody
		note.JettonAmount = tlb.VarUInteger16(*bigU(70))
		note.FromAddress, note.ResponseAddress = liqMsgAddr(stWallet), liqMsgAddr(stWallet)
		tr := liqTrace(stWallet, liqT(stLpWallet, 500_000_000, liqBurn(t, 70, stWallet),
			liqT(stPool, 490_000_000, liqBody(t, uint32(abi.StonfiBurnNotificationExtV2MsgOpCode), note), stonfiPayouts(t)...)))
		a := liqOnly(t, liqClassify(t, tr, stKnown), "DexWithdrawLiquidity")
		if a.status != chain.StatusOK {
			t.Errorf("status %s", a.status)
		}
		liqWant(t, a, map[string]string{"dex": "stonfi_v2", "sender": stWallet, "lp_wallet": stLpWallet,
			"pool": stPool, "lp_master": stPool, "lp_amount": "70", "is_refund": "false",
			"asset_1": stMasterA, "amount_1": "100", "user_jetton_wallet_1": stUserJA, "dex_wallet_1": stRouter, "dex_jetton_wallet_1": stRouterJA,
			"asset_2": "", "amount_2": "50", "user_jetton_wallet_2": "", "dex_wallet_2": stRouter, "dex_jetton_wallet_2": stPton})
	})
	t.Run("refund_me", func(t *testing.T) {
		// The user asks the LP account to give back a deposit that never
		// completed: refund_me at the account, cb_refund_me at the pool,
		// then the same payouts. Right: is_refund, no LP burnt.
		refundMe := liqBody(t, 0x132b9a2c, struct {
			QueryID     uint64
			Left, Right *tlb.Any `tlb:"maybe^"`
		}{})
		cbRefund := liqBody(t, 0x0f98e2b8, struct {
			QueryID     uint64
			Am0, Am1    tlb.VarUInteger16
			User        tlb.MsgAddress
			Left, Right *tlb.Any `tlb:"maybe^"`
		}{Am0: tlb.VarUInteger16(*bigU(100)), Am1: tlb.VarUInteger16(*bigU(50)), User: liqMsgAddr(stWallet)})
		tr := liqTrace(stWallet, liqT(stAccount, 500_000_000, refundMe,
			liqT(stPool, 490_000_000, cbRefund, stonfiPayouts(t)...)))
		a := liqOnly(t, liqClassify(t, tr, stKnown), "DexWithdrawLiquidity")
		if a.status != chain.StatusOK {
			t.Errorf("status %s", a.status)
		}
		liqWant(t, a, map[string]string{"dex": "stonfi_v2", "sender": stWallet, "pool": stPool, "is_refund": "true",
			"lp_amount": "", "lp_wallet": "", "amount_1": "100", "amount_2": "50"})
	})
}

// The parties of the synthetic DeDust and Coffee withdrawals.
var (
	wdWallet    = liqAddr("withdraw user wallet")
	wdLpWallet  = liqAddr("withdraw user LP wallet")
	wdPool      = liqAddr("withdraw pool")
	wdTonVault  = liqAddr("withdraw TON vault")
	wdJetVault  = liqAddr("withdraw jetton B vault")
	wdVaultJW   = liqAddr("withdraw jetton B vault's wallet")
	wdUserJW    = liqAddr("withdraw user jetton B wallet")
	wdMasterB   = liqAddr("jetton B master")
	wdKnownJets = chain.KnownContracts{
		wdVaultJW: {Kind: chain.KindJettonWallet, Jetton: wdMasterB, Owner: wdJetVault},
		wdUserJW:  {Kind: chain.KindJettonWallet, Jetton: wdMasterB, Owner: wdWallet},
	}
)

// wdJettonPayout: the jetton vault pays 2000 B to the user; fail makes
// the user's wallet reject it.
func wdJettonPayout(t testing.TB, amt uint64, fail bool) *liqTx {
	recv := liqT(wdUserJW, 180_000_000, liqInternalTransfer(t, amt, wdJetVault), liqT(wdWallet, 10_000_000, liqExcess(t)))
	if fail {
		recv = liqT(wdUserJW, 180_000_000, liqInternalTransfer(t, amt, wdJetVault)).failed()
	}
	return liqT(wdVaultJW, 190_000_000, liqJettonTransfer(t, amt, wdWallet, wdWallet), recv)
}

func dedustPayoutFromPool(t testing.TB, amt uint64) []byte {
	return liqBody(t, uint32(abi.DedustPayoutFromPoolMsgOpCode), abi.DedustPayoutFromPoolMsgBody{
		Amount: tlb.VarUInteger16(*bigU(amt)), RecipientAddr: liqMsgAddr(wdWallet)})
}

func TestDedustWithdraw(t *testing.T) {
	build := func(t *testing.T, failJetton bool) *chain.Trace {
		return liqTrace(wdWallet, liqT(wdLpWallet, 500_000_000, liqBurn(t, 500, wdWallet),
			liqT(wdPool, 490_000_000, liqBurnNotification(t, 500, wdWallet),
				liqT(wdTonVault, 200_000_000, dedustPayoutFromPool(t, 1000),
					liqT(wdWallet, 1_150_000, liqBody(t, uint32(abi.DedustPayoutMsgOpCode), abi.DedustPayoutMsgBody{}))),
				liqT(wdJetVault, 200_000_000, dedustPayoutFromPool(t, 2000), wdJettonPayout(t, 2000, failJetton)))))
	}
	t.Run("ok", func(t *testing.T) {
		// Right: DeDust (payout_from_pool from the pool to each vault);
		// the TON amount is the one payout_from_pool names (1000), not the
		// payout's value, which also returns gas.
		a := liqOnly(t, liqClassify(t, build(t, false), wdKnownJets), "DexWithdrawLiquidity")
		if a.status != chain.StatusOK {
			t.Errorf("status %s", a.status)
		}
		liqWant(t, a, map[string]string{"dex": "dedust", "sender": wdWallet, "lp_wallet": wdLpWallet, "pool": wdPool,
			"lp_amount": "500", "is_refund": "", "asset_1": "", "amount_1": "1000", "dex_wallet_1": wdTonVault, "dex_jetton_wallet_1": "",
			"asset_2": wdMasterB, "amount_2": "2000", "user_jetton_wallet_2": wdUserJW, "dex_wallet_2": wdJetVault, "dex_jetton_wallet_2": wdVaultJW})
	})
	t.Run("a payout fails", func(t *testing.T) {
		a := liqOnly(t, liqClassify(t, build(t, true), wdKnownJets), "DexWithdrawLiquidity")
		if a.status != chain.StatusFailed {
			t.Errorf("status %s, want failed", a.status)
		}
	})
	t.Run("pool failed, known DeDust pool", func(t *testing.T) {
		// The pool rejects the notification: nothing paid out. The indexer
		// knows it is a DeDust pool, so it is a failed withdrawal.
		tr := liqTrace(wdWallet, liqT(wdLpWallet, 500_000_000, liqBurn(t, 500, wdWallet),
			liqT(wdPool, 490_000_000, liqBurnNotification(t, 500, wdWallet)).failed()))
		known := chain.KnownContracts{wdPool: {Kind: chain.KindDedustPool}}
		a := liqOnly(t, liqClassify(t, tr, known), "DexWithdrawLiquidity")
		if a.status != chain.StatusFailed {
			t.Errorf("status %s, want failed", a.status)
		}
	})
	t.Run("plain jetton burn is not a withdrawal", func(t *testing.T) {
		tr := liqTrace(wdWallet, liqT(wdLpWallet, 500_000_000, liqBurn(t, 500, wdWallet),
			liqT(wdPool, 490_000_000, liqBurnNotification(t, 500, wdWallet))))
		liqOnly(t, liqClassify(t, tr, nil), "JettonBurn")
	})
}

func TestCoffeeWithdraw(t *testing.T) {
	payoutInternal := func(amt uint64) []byte {
		return liqBody(t, uint32(abi.CoffeePayoutInternalMsgOpCode), abi.CoffeePayoutInternalMsgBody{
			Recipient: liqMsgAddr(wdWallet), Amount: tlb.Grams(amt)})
	}
	// Right: Coffee (payout_internal from the pool to each vault); the TON
	// vault pays with payout (0xc0ffee32), the jetton vault with a transfer;
	// amounts as payout_internal names them.
	tr := liqTrace(wdWallet, liqT(wdLpWallet, 500_000_000, liqBurn(t, 500, wdWallet),
		liqT(wdPool, 490_000_000, liqBurnNotification(t, 500, wdWallet),
			liqT(wdTonVault, 200_000_000, payoutInternal(300),
				liqT(wdWallet, 310_000_000, liqBody(t, uint32(abi.CoffeePayoutMsgOpCode), abi.CoffeePayoutMsgBody{}))),
			liqT(wdJetVault, 200_000_000, payoutInternal(400), wdJettonPayout(t, 400, false)))))
	a := liqOnly(t, liqClassify(t, tr, wdKnownJets), "DexWithdrawLiquidity")
	if a.status != chain.StatusOK {
		t.Errorf("status %s", a.status)
	}
	liqWant(t, a, map[string]string{"dex": "coffee", "sender": wdWallet, "pool": wdPool, "lp_amount": "500",
		"asset_1": "", "amount_1": "300", "dex_wallet_1": wdTonVault,
		"asset_2": wdMasterB, "amount_2": "400", "user_jetton_wallet_2": wdUserJW, "dex_jetton_wallet_2": wdVaultJW})
}

// Tonco withdrawal bodies, from the TL-B toncenter's indexer documents.
type toncoStartBurnT struct {
	QueryID     uint64
	BurnedIndex uint64
	Liquidity   tlb.Uint128
	TickLower   tlb.Int24
	TickUpper   tlb.Int24
}

type toncoPositionBurnT struct {
	QueryID   uint64
	NftOwner  tlb.MsgAddress
	Liquidity tlb.Uint128
	TickLower tlb.Int24
	TickUpper tlb.Int24
}

type toncoPoolBurnT struct {
	QueryID         uint64
	Recipient       tlb.MsgAddress
	BurnedIndex     uint64
	Liquidity       tlb.Uint128
	TickLower       tlb.Int24
	TickUpper       tlb.Int24
	LiquidityToBurn tlb.Uint128
}

type toncoPayToT struct {
	QueryID              uint64
	Receiver0, Receiver1 tlb.MsgAddress
	ExitCode             uint32
	Seqno                uint64
	Coins                *struct {
		Amount0 tlb.VarUInteger16
		Jetton0 tlb.MsgAddress
		Amount1 tlb.VarUInteger16
		Jetton1 tlb.MsgAddress
	} `tlb:"maybe^"`
}

func TestToncoWithdrawStatus(t *testing.T) {
	user, pool, nft, router := liqAddr("tonco user"), liqAddr("tonco pool"), liqAddr("tonco position"), liqAddr("tonco router")
	rwA, rwB, uwA, uwB := liqAddr("tonco router A wallet"), liqAddr("tonco router B wallet"), liqAddr("tonco user A wallet"), liqAddr("tonco user B wallet")
	liq := tlb.Uint128(*big.NewInt(777))
	build := func(exit uint32) *chain.Trace {
		pay := toncoPayToT{Receiver0: liqMsgAddr(user), Receiver1: liqMsgAddr(user), ExitCode: exit}
		pay.Coins = &struct {
			Amount0 tlb.VarUInteger16
			Jetton0 tlb.MsgAddress
			Amount1 tlb.VarUInteger16
			Jetton1 tlb.MsgAddress
		}{tlb.VarUInteger16(*bigU(11)), liqMsgAddr(rwA), tlb.VarUInteger16(*bigU(22)), liqMsgAddr(rwB)}
		// The router pays jetton1 first: the value orders by the pool's
		// jetton0/jetton1 named in pay_to.
		return liqTrace(user, liqT(pool, 300_000_000, liqBody(t, 0x530b5f2c, toncoStartBurnT{BurnedIndex: 5, Liquidity: liq, TickLower: -60, TickUpper: 60}),
			liqT(nft, 290_000_000, liqBody(t, 0x46ca335a, toncoPositionBurnT{NftOwner: liqMsgAddr(user), Liquidity: liq, TickLower: -60, TickUpper: 60}),
				liqT(pool, 280_000_000, liqBody(t, 0xd73ac09d, toncoPoolBurnT{Recipient: liqMsgAddr(user), BurnedIndex: 5, Liquidity: liq, TickLower: -60, TickUpper: 60, LiquidityToBurn: liq}),
					liqT(router, 270_000_000, liqBody(t, uint32(abi.PayToMsgOpCode), pay),
						liqT(rwB, 100_000_000, liqJettonTransfer(t, 22, user, user), liqT(uwB, 90_000_000, liqInternalTransfer(t, 22, router))),
						liqT(rwA, 100_000_000, liqJettonTransfer(t, 11, user, user), liqT(uwA, 90_000_000, liqInternalTransfer(t, 11, router))))))))
	}
	for _, tc := range []struct {
		exit uint32
		want string
	}{{201, chain.StatusOK}, {0, chain.StatusOK}, {300, chain.StatusFailed}} {
		a := liqOnly(t, liqClassify(t, build(tc.exit), nil), "DexWithdrawLiquidity")
		if a.status != tc.want {
			t.Errorf("exit code %d: status %s, want %s", tc.exit, a.status, tc.want)
		}
		liqWant(t, a, map[string]string{"dex": "tonco", "sender": user, "pool": pool, "burnt_nft": nft, "burnt_nft_index": "5",
			"lp_amount": "777", "amount_1": "11", "dex_jetton_wallet_1": rwA, "user_jetton_wallet_1": uwA,
			"amount_2": "22", "dex_jetton_wallet_2": rwB, "user_jetton_wallet_2": uwB, "dex_wallet_1": router})
		if a.v["tick_lower"] != float64(-60) || a.v["tick_upper"] != float64(60) {
			t.Errorf("ticks %v %v", a.v["tick_lower"], a.v["tick_upper"])
		}
	}
}
