package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// The parties of the synthetic STON.fi v2 traces.
var (
	stWallet   = named("stonfi user wallet")
	stUserJA   = named("stonfi user jetton A wallet")
	stRouter   = named("stonfi router")
	stRouterJA = named("stonfi router jetton A wallet")
	stPton     = named("stonfi router pTON wallet")
	stPool     = named("stonfi pool")
	stAccount  = named("stonfi LP account")
	stLpWallet = named("stonfi user LP wallet")
	stMasterA  = named("jetton A master")
	// STON.fi's pTON v2 master, one of the wrapped-TON masters.
	stPtonMaster = "0:671963027F7F85659AB55B821671688601CDCF1EE674FC7FBBB1A776A18D34A3"
)

var stKnown = chain.KnownContracts{
	stUserJA:   {Kind: chain.KindJettonWallet, Jetton: stMasterA, Owner: stWallet},
	stRouterJA: {Kind: chain.KindJettonWallet, Jetton: stMasterA, Owner: stRouter},
	stPton:     {Kind: chain.KindJettonWallet, Jetton: stPtonMaster, Owner: stRouter},
}

// ptonTransfer is pTON's ton_transfer: TON sent to the router as a jetton.
func ptonTransfer(amount uint64, refund string) *boc.Cell {
	return cellOf(op(abi.PtonTonTransferMsgOpCode), tlbOf(abi.PtonTonTransferMsgBody{TonAmount: tlb.Grams(amount), RefundAddress: msgAddr(refund)}))
}

func stProvide(left, right uint64, other string) *boc.Cell {
	var b abi.StonfiProvideLpV2MsgBody
	b.FromUser = msgAddr(stWallet)
	b.LeftAmount, b.RightAmount = varCoins(left), varCoins(right)
	b.DexPayload.TransferredOp = uint32(abi.StonfiProvideLpV2MsgOpCode)
	b.DexPayload.TokenWallet1 = msgAddr(other)
	b.DexPayload.RefundAddress, b.DexPayload.ExcessesAddress = msgAddr(stWallet), msgAddr(stWallet)
	b.DexPayload.TxDeadline = 2_000_000_000
	b.DexPayload.ProvideLpBody.ToAddress = msgAddr(stWallet)
	b.DexPayload.ProvideLpBody.BothPositive = 1
	return cellOf(op(abi.StonfiProvideLpV2MsgOpCode), tlbOf(b))
}

func stAddLiquidity(a0, a1 uint64, to string) *boc.Cell {
	var b abi.StonfiAddLiquidityV2MsgBody
	b.NewAmount0, b.NewAmount1 = varCoins(a0), varCoins(a1)
	b.BothPositive = 1
	b.ToUser = msgAddr(to)
	b.AdditionalFields.RefundAddress, b.AdditionalFields.ExcessAddress = msgAddr(stWallet), msgAddr(stWallet)
	return cellOf(op(abi.StonfiAddLiquidityV2MsgOpCode), tlbOf(b))
}

func stCbAddLiquidity(a0, a1 uint64) *boc.Cell {
	var b abi.StonfiCbAddLiquidityV2MsgBody
	b.TotAm0, b.TotAm1 = varCoins(a0), varCoins(a1)
	b.UserAddress = msgAddr(stWallet)
	b.AdditionalFields.ToUserAddress = msgAddr(stWallet)
	b.AdditionalFields.RefundAddress, b.AdditionalFields.ExcessAddress = msgAddr(stWallet), msgAddr(stWallet)
	return cellOf(op(abi.StonfiCbAddLiquidityV2MsgOpCode), tlbOf(b))
}

// stJettonBranch: the user sends 100 jetton A to the router with a
// provide_lp payload; the router's provide_lp reaches the pool, which
// records it in the LP account; then the account does what next says.
func stJettonBranch(next ...*stx) *stx {
	return call(stUserJA, 300_000_000, jetton{amount: 100, to: stRouter, response: stWallet}.transfer(),
		call(stRouterJA, 290_000_000, jetton{amount: 100, from: stWallet, response: stWallet}.internal(),
			call(stRouter, 250_000_000, jetton{amount: 100, from: stWallet}.notify(),
				call(stPool, 240_000_000, stProvide(100, 0, stPton),
					call(stAccount, 230_000_000, stAddLiquidity(100, 0, stWallet), next...))),
			call(stWallet, 10_000_000, excesses(0))))
}

// stTonBranch: the user sends 50 TON through the router's pTON wallet.
func stTonBranch(next ...*stx) *stx {
	return call(stPton, 400_000_000, ptonTransfer(50, stWallet),
		call(stRouter, 350_000_000, jetton{amount: 50, from: stWallet}.notify(),
			call(stPool, 340_000_000, stProvide(0, 50, stRouterJA),
				call(stAccount, 330_000_000, stAddLiquidity(0, 50, stWallet), next...))))
}

// stMint: the account calls the pool back with both amounts; the pool
// mints 70 LP jettons to the user's LP wallet.
func stMint() *stx {
	return call(stPool, 300_000_000, stCbAddLiquidity(100, 50),
		call(stLpWallet, 290_000_000, jetton{amount: 70, from: stPool, response: stPool}.internal(),
			call(stWallet, 10_000_000, excesses(0))))
}

func TestStonfiV2Deposit(t *testing.T) {
	t.Run("both assets in one message, minted", func(t *testing.T) {
		// Right: one action for the deposit (toncenter merges the two
		// branches sent by one wallet message); asset 1 is the pool's
		// token0 (left amount): jetton A, 100, from the user's A wallet;
		// asset 2 is TON (pTON), 50; the LP mint completes it.
		tr := ext(stWallet, stJettonBranch(), stTonBranch(stMint()))
		a := classify(t, tr, stKnown).only(t, "DexDepositLiquidity:ok")
		a.want(t, map[string]any{"dex": "stonfi_v2", "sender": stWallet, "pool": stPool,
			"deposit_contract": stAccount, "asset_1": stMasterA, "amount_1": "100", "user_jetton_wallet_1": stUserJA,
			"asset_2": nil, "amount_2": "50", "user_jetton_wallet_2": nil, "target_asset_1": stMasterA, "target_asset_2": nil,
			"lp_amount": "70", "lp_wallet": stLpWallet})
		if a.txs() != 14 {
			t.Errorf("%d transactions, want every one of the trace (14)", a.txs())
		}
	})
	t.Run("one asset, completed later", func(t *testing.T) {
		// Right: the LP account holds the jettons until the other asset
		// comes: a deposit that did what it could, ok, without LP.
		tr := ext(stWallet, stJettonBranch())
		a := classify(t, tr, stKnown).only(t, "DexDepositLiquidity:ok")
		a.want(t, map[string]any{"asset_1": stMasterA, "amount_1": "100", "amount_2": nil, "lp_amount": nil,
			"target_asset_1": stMasterA, "deposit_contract": stAccount})
	})
	t.Run("pool refuses at the callback", func(t *testing.T) {
		// The pool finds the LP out too low and hands both amounts to an
		// LP account instead of minting (add_liquidity back). No branch
		// saw a mint, so, as toncenter has it, the branches stay apart:
		// the jetton one ok, the TON one, which met the refusal, failed.
		refund := call(stPool, 300_000_000, stCbAddLiquidity(100, 50),
			call(stAccount, 290_000_000, stAddLiquidity(100, 50, stWallet)))
		tr := ext(stWallet, stJettonBranch(), stTonBranch(refund))
		got := classify(t, tr, stKnown)
		got.expect(t, "DexDepositLiquidity:ok", "DexDepositLiquidity:failed")
		got.one(t, "DexDepositLiquidity:ok").want(t, map[string]any{"asset_1": stMasterA, "amount_1": "100", "amount_2": nil})
		got.one(t, "DexDepositLiquidity:failed").want(t, map[string]any{"lp_amount": nil, "asset_1": nil, "amount_1": "50", "amount_2": nil})
	})
	t.Run("pool did not record", func(t *testing.T) {
		// The pool fails on provide_lp: nothing reached the LP account.
		// Toncenter sees no deposit there, only the jetton transfer.
		tr := ext(stWallet, call(stUserJA, 300_000_000, jetton{amount: 100, to: stRouter, response: stWallet}.transfer(),
			call(stRouterJA, 290_000_000, jetton{amount: 100, from: stWallet, response: stWallet}.internal(),
				call(stRouter, 250_000_000, jetton{amount: 100, from: stWallet}.notify(),
					call(stPool, 240_000_000, stProvide(100, 0, stPton)).fails(100)))))
		got := classify(t, tr, stKnown)
		if len(got.ofKind("DexDepositLiquidity")) != 0 || len(got.ofKind("JettonTransfer")) != 1 {
			t.Errorf("actions %v, want a JettonTransfer and no deposit", got.kinds())
		}
	})
	t.Run("a separate deposit at another pool stays separate", func(t *testing.T) {
		// Two branches to different pools are two deposits.
		other := call(stPton, 400_000_000, ptonTransfer(50, stWallet),
			call(stRouter, 350_000_000, jetton{amount: 50, from: stWallet}.notify(),
				call(named("another pool"), 340_000_000, stProvide(0, 50, stRouterJA),
					call(named("another LP account"), 330_000_000, stAddLiquidity(0, 50, stWallet)))))
		got := classify(t, ext(stWallet, stJettonBranch(), other), stKnown)
		if len(got) != 2 || got[0].Type != "DexDepositLiquidity" || got[1].Type != "DexDepositLiquidity" {
			t.Fatalf("got %v, want two deposits", got.kinds())
		}
	})
}
