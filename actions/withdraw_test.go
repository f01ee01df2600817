package actions_test

import (
	"math/big"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("DexWithdrawLiquidity", 1, 1)
}

// stonfiPayTo is the router's pay_to from the pool: one asset of a
// withdrawal (STON.fi dex-core-v2 pays each asset with its own pay_to).
func stonfiPayTo(a0, a1 uint64, exit uint32) *boc.Cell {
	var b abi.StonfiPayToV2MsgBody
	b.ToAddress, b.ExcessesAddress, b.OriginalCaller = msgAddr(stWallet), msgAddr(stWallet), msgAddr(stWallet)
	b.ExitCode = exit
	b.AdditionalInfo.Amount0Out, b.AdditionalInfo.Amount1Out = varCoins(a0), varCoins(a1)
	b.AdditionalInfo.Token0Address, b.AdditionalInfo.Token1Address = msgAddr(stRouterJA), msgAddr(stPton)
	return cellOf(op(abi.StonfiPayToV2MsgOpCode), tlbOf(b))
}

// stonfiPayouts: the pool has the router pay 100 jetton A (through the
// router's A wallet to the user's) and 50 TON (through pTON).
func stonfiPayouts() []*stx {
	const burnOK = 0xdda48b6a // any code: the indexer does not read it
	return []*stx{
		call(stRouter, 200_000_000, stonfiPayTo(100, 0, burnOK),
			call(stRouterJA, 190_000_000, jetton{amount: 100, to: stWallet, response: stWallet}.transfer(),
				call(stUserJA, 180_000_000, jetton{amount: 100, from: stRouter, response: stRouter}.internal(),
					call(stWallet, 10_000_000, excesses(0))))),
		call(stRouter, 200_000_000, stonfiPayTo(0, 50, burnOK),
			call(stPton, 190_000_000, jetton{amount: 50, to: stWallet, response: stWallet}.transfer(),
				call(stWallet, 180_000_050, ptonTransfer(50, stWallet)))),
	}
}

func TestStonfiV2Withdraw(t *testing.T) {
	t.Run("burn", func(t *testing.T) {
		// Right: burn of 70 LP at the user's LP wallet, burn_notification_ext
		// at the pool (the LP master), two pay_to to the router; asset 1
		// jetton A 100 into the user's A wallet from the router's A wallet,
		// asset 2 TON 50 from the router's pTON wallet. Not a refund.
		var note abi.StonfiBurnNotificationExtV2MsgBody
		note.JettonAmount = varCoins(70)
		note.FromAddress, note.ResponseAddress = msgAddr(stWallet), msgAddr(stWallet)
		tr := ext(stWallet, call(stLpWallet, 500_000_000, jetton{amount: 70, response: stWallet}.burn(),
			call(stPool, 490_000_000, cellOf(op(abi.StonfiBurnNotificationExtV2MsgOpCode), tlbOf(note)), stonfiPayouts()...)))
		a := classify(t, tr, stKnown).only(t, "DexWithdrawLiquidity:ok")
		a.want(t, map[string]any{"dex": "stonfi_v2", "sender": stWallet, "lp_wallet": stLpWallet,
			"pool": stPool, "lp_master": stPool, "lp_amount": "70", "is_refund": false,
			"asset_1": stMasterA, "amount_1": "100", "user_jetton_wallet_1": stUserJA, "dex_wallet_1": stRouter, "dex_jetton_wallet_1": stRouterJA,
			"asset_2": nil, "amount_2": "50", "user_jetton_wallet_2": nil, "dex_wallet_2": stRouter, "dex_jetton_wallet_2": stPton})
	})
	t.Run("pool paid nothing", func(t *testing.T) {
		// burn_notification_ext failed at the pool: no pay_to. Toncenter
		// sees a jetton burn, no withdrawal.
		var note abi.StonfiBurnNotificationExtV2MsgBody
		note.JettonAmount = varCoins(70)
		note.FromAddress, note.ResponseAddress = msgAddr(stWallet), msgAddr(stWallet)
		tr := ext(stWallet, call(stLpWallet, 500_000_000, jetton{amount: 70, response: stWallet}.burn(),
			call(stPool, 490_000_000, cellOf(op(abi.StonfiBurnNotificationExtV2MsgOpCode), tlbOf(note))).fails(100)))
		got := classify(t, tr, stKnown)
		if len(got.ofKind("DexWithdrawLiquidity")) != 0 || len(got.ofKind("JettonBurn")) != 1 {
			t.Errorf("actions %v, want a JettonBurn and no withdrawal", got.kinds())
		}
	})
	t.Run("refund_me", func(t *testing.T) {
		// The user asks the LP account to give back a deposit that never
		// completed: refund_me at the account, cb_refund_me at the pool,
		// then the same payouts. Right: is_refund, no LP burnt.
		refundMe := cellOf(op(0x132b9a2c), tlbOf(struct {
			QueryID     uint64
			Left, Right *tlb.Any `tlb:"maybe^"`
		}{}))
		cbRefund := cellOf(op(0x0f98e2b8), tlbOf(struct {
			QueryID     uint64
			Am0, Am1    tlb.VarUInteger16
			User        tlb.MsgAddress
			Left, Right *tlb.Any `tlb:"maybe^"`
		}{Am0: varCoins(100), Am1: varCoins(50), User: msgAddr(stWallet)}))
		tr := ext(stWallet, call(stAccount, 500_000_000, refundMe,
			call(stPool, 490_000_000, cbRefund, stonfiPayouts()...)))
		a := classify(t, tr, stKnown).only(t, "DexWithdrawLiquidity:ok")
		a.want(t, map[string]any{"dex": "stonfi_v2", "sender": stWallet, "pool": stPool, "is_refund": true,
			"lp_amount": nil, "lp_wallet": nil, "amount_1": "100", "amount_2": "50"})
	})
}

// The parties of the synthetic DeDust and Coffee withdrawals.
var (
	wdWallet    = named("withdraw user wallet")
	wdLpWallet  = named("withdraw user LP wallet")
	wdPool      = named("withdraw pool")
	wdTonVault  = named("withdraw TON vault")
	wdJetVault  = named("withdraw jetton B vault")
	wdVaultJW   = named("withdraw jetton B vault's wallet")
	wdUserJW    = named("withdraw user jetton B wallet")
	wdMasterB   = named("jetton B master")
	wdKnownJets = chain.KnownContracts{
		wdVaultJW: {Kind: chain.KindJettonWallet, Jetton: wdMasterB, Owner: wdJetVault},
		wdUserJW:  {Kind: chain.KindJettonWallet, Jetton: wdMasterB, Owner: wdWallet},
	}
)

// wdJettonPayout: the jetton vault pays 2000 B to the user; fail makes
// the user's wallet reject it.
func wdJettonPayout(amt uint64, fail bool) *stx {
	recv := call(wdUserJW, 180_000_000, jetton{amount: amt, from: wdJetVault, response: wdJetVault}.internal())
	if fail {
		recv.fails(100)
	} else {
		recv.then(call(wdWallet, 10_000_000, excesses(0)))
	}
	return call(wdVaultJW, 190_000_000, jetton{amount: amt, to: wdWallet, response: wdWallet}.transfer(), recv)
}

func dedustPayoutFromPool(amt uint64) *boc.Cell {
	return cellOf(op(abi.DedustPayoutFromPoolMsgOpCode), tlbOf(abi.DedustPayoutFromPoolMsgBody{
		Amount: varCoins(amt), RecipientAddr: msgAddr(wdWallet)}))
}

func TestDedustWithdraw(t *testing.T) {
	build := func(failJetton bool) *stx {
		return ext(wdWallet, call(wdLpWallet, 500_000_000, jetton{amount: 500, response: wdWallet}.burn(),
			call(wdPool, 490_000_000, jetton{amount: 500, from: wdWallet, response: wdWallet}.burnNotification(),
				call(wdTonVault, 200_000_000, dedustPayoutFromPool(1000),
					call(wdWallet, 1_150_000, cellOf(op(abi.DedustPayoutMsgOpCode), tlbOf(abi.DedustPayoutMsgBody{})))),
				call(wdJetVault, 200_000_000, dedustPayoutFromPool(2000), wdJettonPayout(2000, failJetton)))))
	}
	t.Run("ok", func(t *testing.T) {
		// Right: DeDust (payout_from_pool from the pool to each vault);
		// the TON amount is the one payout_from_pool names (1000), not the
		// payout's value, which also returns gas.
		a := classify(t, build(false), wdKnownJets).only(t, "DexWithdrawLiquidity:ok")
		a.want(t, map[string]any{"dex": "dedust", "sender": wdWallet, "lp_wallet": wdLpWallet, "pool": wdPool,
			"lp_amount": "500", "is_refund": nil, "asset_1": nil, "amount_1": "1000", "dex_wallet_1": wdTonVault, "dex_jetton_wallet_1": nil,
			"asset_2": wdMasterB, "amount_2": "2000", "user_jetton_wallet_2": wdUserJW, "dex_wallet_2": wdJetVault, "dex_jetton_wallet_2": wdVaultJW})
	})
	t.Run("a payout fails", func(t *testing.T) {
		// Toncenter never fails a DeDust withdrawal: the user's wallet
		// refusing the jettons does not change it.
		classify(t, build(true), wdKnownJets).only(t, "DexWithdrawLiquidity:ok")
	})
	t.Run("pool failed, known DeDust pool", func(t *testing.T) {
		// The pool rejects the notification: nothing paid out. Without
		// the payouts toncenter's matcher needs, it is a jetton burn,
		// even at a pool the indexer knows.
		tr := ext(wdWallet, call(wdLpWallet, 500_000_000, jetton{amount: 500, response: wdWallet}.burn(),
			call(wdPool, 490_000_000, jetton{amount: 500, from: wdWallet, response: wdWallet}.burnNotification()).fails(100)))
		known := chain.KnownContracts{wdPool: {Kind: chain.KindDedustPool}}
		got := classify(t, tr, known)
		if len(got.ofKind("DexWithdrawLiquidity")) != 0 || len(got.ofKind("JettonBurn")) != 1 {
			t.Errorf("actions %v, want a JettonBurn and no withdrawal", got.kinds())
		}
	})
	t.Run("plain jetton burn is not a withdrawal", func(t *testing.T) {
		tr := ext(wdWallet, call(wdLpWallet, 500_000_000, jetton{amount: 500, response: wdWallet}.burn(),
			call(wdPool, 490_000_000, jetton{amount: 500, from: wdWallet, response: wdWallet}.burnNotification())))
		classify(t, tr, nil).only(t, "JettonBurn")
	})
}

func TestCoffeeWithdraw(t *testing.T) {
	payoutInternal := func(amt uint64) *boc.Cell {
		return cellOf(op(abi.CoffeePayoutInternalMsgOpCode), tlbOf(abi.CoffeePayoutInternalMsgBody{
			Recipient: msgAddr(wdWallet), Amount: tlb.Grams(amt)}))
	}
	// Right: Coffee (payout_internal from the pool to each vault); the TON
	// vault pays with payout (0xc0ffee32), the jetton vault with a transfer;
	// amounts as payout_internal names them.
	tr := ext(wdWallet, call(wdLpWallet, 500_000_000, jetton{amount: 500, response: wdWallet}.burn(),
		call(wdPool, 490_000_000, jetton{amount: 500, from: wdWallet, response: wdWallet}.burnNotification(),
			call(wdTonVault, 200_000_000, payoutInternal(300),
				call(wdWallet, 310_000_000, cellOf(op(abi.CoffeePayoutMsgOpCode), tlbOf(abi.CoffeePayoutMsgBody{})))),
			call(wdJetVault, 200_000_000, payoutInternal(400), wdJettonPayout(400, false)))))
	a := classify(t, tr, wdKnownJets).only(t, "DexWithdrawLiquidity:ok")
	a.want(t, map[string]any{"dex": "coffee", "sender": wdWallet, "pool": wdPool, "lp_amount": "500",
		"asset_1": nil, "amount_1": "300", "dex_wallet_1": wdTonVault,
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
	user, pool, nft, router := named("tonco user"), named("tonco pool"), named("tonco position"), named("tonco router")
	rwA, rwB, uwA, uwB := named("tonco router A wallet"), named("tonco router B wallet"), named("tonco user A wallet"), named("tonco user B wallet")
	liq := tlb.Uint128(*big.NewInt(777))
	build := func(exit uint32) *stx {
		pay := toncoPayToT{Receiver0: msgAddr(user), Receiver1: msgAddr(user), ExitCode: exit}
		pay.Coins = &struct {
			Amount0 tlb.VarUInteger16
			Jetton0 tlb.MsgAddress
			Amount1 tlb.VarUInteger16
			Jetton1 tlb.MsgAddress
		}{varCoins(11), msgAddr(rwA), varCoins(22), msgAddr(rwB)}
		// The router pays jetton1 first: the value orders by the pool's
		// jetton0/jetton1 named in pay_to.
		return ext(user, call(pool, 300_000_000, cellOf(op(0x530b5f2c), tlbOf(toncoStartBurnT{BurnedIndex: 5, Liquidity: liq, TickLower: -60, TickUpper: 60})),
			call(nft, 290_000_000, cellOf(op(0x46ca335a), tlbOf(toncoPositionBurnT{NftOwner: msgAddr(user), Liquidity: liq, TickLower: -60, TickUpper: 60})),
				call(pool, 280_000_000, cellOf(op(0xd73ac09d), tlbOf(toncoPoolBurnT{Recipient: msgAddr(user), BurnedIndex: 5, Liquidity: liq, TickLower: -60, TickUpper: 60, LiquidityToBurn: liq})),
					call(router, 270_000_000, cellOf(op(abi.PayToMsgOpCode), tlbOf(pay)),
						call(rwB, 100_000_000, jetton{amount: 22, to: user, response: user}.transfer(), call(uwB, 90_000_000, jetton{amount: 22, from: router, response: router}.internal())),
						call(rwA, 100_000_000, jetton{amount: 11, to: user, response: user}.transfer(), call(uwA, 90_000_000, jetton{amount: 11, from: router, response: router}.internal())))))))
	}
	for _, tc := range []struct {
		exit uint32
		want string
	}{{201, chain.StatusOK}, {0, chain.StatusOK}, {300, chain.StatusFailed}} {
		a := classify(t, build(tc.exit), nil).only(t, "DexWithdrawLiquidity")
		if a.Status != tc.want {
			t.Errorf("exit code %d: status %s, want %s", tc.exit, a.Status, tc.want)
		}
		a.want(t, map[string]any{"dex": "tonco", "sender": user, "pool": pool, "burnt_nft": nft, "burnt_nft_index": "5",
			"lp_amount": "777", "amount_1": "11", "dex_jetton_wallet_1": rwA, "user_jetton_wallet_1": uwA,
			"amount_2": "22", "dex_jetton_wallet_2": rwB, "user_jetton_wallet_2": uwB, "dex_wallet_1": router,
			"tick_lower": -60, "tick_upper": 60})
	}
}
