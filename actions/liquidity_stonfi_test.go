package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// The parties of the synthetic STON.fi v2 traces.
var (
	stWallet   = liqAddr("stonfi user wallet")
	stUserJA   = liqAddr("stonfi user jetton A wallet")
	stRouter   = liqAddr("stonfi router")
	stRouterJA = liqAddr("stonfi router jetton A wallet")
	stPton     = liqAddr("stonfi router pTON wallet")
	stPool     = liqAddr("stonfi pool")
	stAccount  = liqAddr("stonfi LP account")
	stLpWallet = liqAddr("stonfi user LP wallet")
	stMasterA  = liqAddr("jetton A master")
	// STON.fi's pTON v2 master, one of the wrapped-TON masters.
	stPtonMaster = "0:671963027F7F85659AB55B821671688601CDCF1EE674FC7FBBB1A776A18D34A3"
)

var stKnown = chain.KnownContracts{
	stUserJA:   {Kind: chain.KindJettonWallet, Jetton: stMasterA, Owner: stWallet},
	stRouterJA: {Kind: chain.KindJettonWallet, Jetton: stMasterA, Owner: stRouter},
	stPton:     {Kind: chain.KindJettonWallet, Jetton: stPtonMaster, Owner: stRouter},
}

var liqNone = tlb.MsgAddress{SumType: "AddrNone"}

func stProvide(t testing.TB, left, right uint64, other string) []byte {
	var b abi.StonfiProvideLpV2MsgBody
	b.FromUser = liqMsgAddr(stWallet)
	b.LeftAmount, b.RightAmount = tlb.VarUInteger16(*bigU(left)), tlb.VarUInteger16(*bigU(right))
	b.DexPayload.TransferredOp = uint32(abi.StonfiProvideLpV2MsgOpCode)
	b.DexPayload.TokenWallet1 = liqMsgAddr(other)
	b.DexPayload.RefundAddress, b.DexPayload.ExcessesAddress = liqMsgAddr(stWallet), liqMsgAddr(stWallet)
	b.DexPayload.TxDeadline = 2_000_000_000
	b.DexPayload.ProvideLpBody.ToAddress = liqMsgAddr(stWallet)
	b.DexPayload.ProvideLpBody.BothPositive = 1
	return liqBody(t, uint32(abi.StonfiProvideLpV2MsgOpCode), b)
}

func stAddLiquidity(t testing.TB, a0, a1 uint64, to string) []byte {
	var b abi.StonfiAddLiquidityV2MsgBody
	b.NewAmount0, b.NewAmount1 = tlb.VarUInteger16(*bigU(a0)), tlb.VarUInteger16(*bigU(a1))
	b.BothPositive = 1
	b.ToUser = liqMsgAddr(to)
	b.AdditionalFields.RefundAddress, b.AdditionalFields.ExcessAddress = liqMsgAddr(stWallet), liqMsgAddr(stWallet)
	return liqBody(t, uint32(abi.StonfiAddLiquidityV2MsgOpCode), b)
}

func stCbAddLiquidity(t testing.TB, a0, a1 uint64) []byte {
	var b abi.StonfiCbAddLiquidityV2MsgBody
	b.TotAm0, b.TotAm1 = tlb.VarUInteger16(*bigU(a0)), tlb.VarUInteger16(*bigU(a1))
	b.UserAddress = liqMsgAddr(stWallet)
	b.AdditionalFields.ToUserAddress = liqMsgAddr(stWallet)
	b.AdditionalFields.RefundAddress, b.AdditionalFields.ExcessAddress = liqMsgAddr(stWallet), liqMsgAddr(stWallet)
	return liqBody(t, uint32(abi.StonfiCbAddLiquidityV2MsgOpCode), b)
}

// stJettonBranch: the user sends 100 jetton A to the router with a
// provide_lp payload; the router's provide_lp reaches the pool, which
// records it in the LP account; then the account does what next says.
func stJettonBranch(t testing.TB, next ...*liqTx) *liqTx {
	return liqT(stUserJA, 300_000_000, liqJettonTransfer(t, 100, stRouter, stWallet),
		liqT(stRouterJA, 290_000_000, liqInternalTransfer(t, 100, stWallet),
			liqT(stRouter, 250_000_000, liqNotify(t, 100, stWallet, nil),
				liqT(stPool, 240_000_000, stProvide(t, 100, 0, stPton),
					liqT(stAccount, 230_000_000, stAddLiquidity(t, 100, 0, stWallet), next...))),
			liqT(stWallet, 10_000_000, liqExcess(t))))
}

// stTonBranch: the user sends 50 TON through the router's pTON wallet.
func stTonBranch(t testing.TB, next ...*liqTx) *liqTx {
	return liqT(stPton, 400_000_000, liqPtonTransfer(t, 50, stWallet),
		liqT(stRouter, 350_000_000, liqNotify(t, 50, stWallet, nil),
			liqT(stPool, 340_000_000, stProvide(t, 0, 50, stRouterJA),
				liqT(stAccount, 330_000_000, stAddLiquidity(t, 0, 50, stWallet), next...))))
}

// stMint: the account calls the pool back with both amounts; the pool
// mints 70 LP jettons to the user's LP wallet.
func stMint(t testing.TB) *liqTx {
	return liqT(stPool, 300_000_000, stCbAddLiquidity(t, 100, 50),
		liqT(stLpWallet, 290_000_000, liqInternalTransfer(t, 70, stPool),
			liqT(stWallet, 10_000_000, liqExcess(t))))
}

func TestStonfiV2Deposit(t *testing.T) {
	t.Run("both assets in one message, minted", func(t *testing.T) {
		// Right: one action for the deposit (toncenter merges the two
		// branches sent by one wallet message); asset 1 is the pool's
		// token0 (left amount): jetton A, 100, from the user's A wallet;
		// asset 2 is TON (pTON), 50; the LP mint completes it.
		tr := liqTrace(stWallet, stJettonBranch(t), stTonBranch(t, stMint(t)))
		a := liqOnly(t, liqClassify(t, tr, stKnown), "DexDepositLiquidity")
		if a.status != chain.StatusOK {
			t.Errorf("status %s", a.status)
		}
		liqWant(t, a, map[string]string{"dex": "stonfi_v2", "sender": stWallet, "pool": stPool,
			"deposit_contract": stAccount, "asset_1": stMasterA, "amount_1": "100", "user_jetton_wallet_1": stUserJA,
			"asset_2": "", "amount_2": "50", "user_jetton_wallet_2": "", "target_asset_1": stMasterA, "target_asset_2": "",
			"lp_amount": "70", "lp_wallet": stLpWallet})
		if a.txs != 14 {
			t.Errorf("%d transactions, want every one of the trace (14)", a.txs)
		}
	})
	t.Run("one asset, completed later", func(t *testing.T) {
		// Right: the LP account holds the jettons until the other asset
		// comes: a deposit that did what it could, ok, without LP.
		tr := liqTrace(stWallet, stJettonBranch(t))
		a := liqOnly(t, liqClassify(t, tr, stKnown), "DexDepositLiquidity")
		if a.status != chain.StatusOK {
			t.Errorf("status %s", a.status)
		}
		liqWant(t, a, map[string]string{"asset_1": stMasterA, "amount_1": "100", "amount_2": "", "lp_amount": "",
			"target_asset_1": stMasterA, "deposit_contract": stAccount})
	})
	t.Run("pool refuses at the callback", func(t *testing.T) {
		// The pool finds the LP out too low and hands both amounts to an
		// LP account instead of minting (add_liquidity back): failed.
		refund := liqT(stPool, 300_000_000, stCbAddLiquidity(t, 100, 50),
			liqT(stAccount, 290_000_000, stAddLiquidity(t, 100, 50, stWallet)))
		tr := liqTrace(stWallet, stJettonBranch(t), stTonBranch(t, refund))
		a := liqOnly(t, liqClassify(t, tr, stKnown), "DexDepositLiquidity")
		if a.status != chain.StatusFailed {
			t.Errorf("status %s, want failed", a.status)
		}
		liqWant(t, a, map[string]string{"lp_amount": "", "amount_1": "100", "amount_2": "50"})
	})
	t.Run("a separate deposit at another pool stays separate", func(t *testing.T) {
		// Two branches to different pools are two deposits.
		other := liqT(stPton, 400_000_000, liqPtonTransfer(t, 50, stWallet),
			liqT(stRouter, 350_000_000, liqNotify(t, 50, stWallet, nil),
				liqT(liqAddr("another pool"), 340_000_000, stProvide(t, 0, 50, stRouterJA),
					liqT(liqAddr("another LP account"), 330_000_000, stAddLiquidity(t, 0, 50, stWallet)))))
		got := liqClassify(t, liqTrace(stWallet, stJettonBranch(t), other), stKnown)
		if len(got) != 2 || got[0].typ != "DexDepositLiquidity" || got[1].typ != "DexDepositLiquidity" {
			t.Fatalf("got %v, want two deposits", got)
		}
	})
}
