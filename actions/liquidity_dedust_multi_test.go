package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// The pool and the user's LP wallet of the synthetic DeDust deposits that
// complete.
var (
	ddPool = named("dedust pool")
	ddLPJW = named("dedust user LP wallet")
)

// ddTonDeposit is deposit_liquidity#d55e4686 of amount TON to the TON
// vault, for the TON / jetton pool with targets 10 and 20.
func ddTonDeposit(amount uint64, then ...*stx) *stx {
	var b abi.DedustDepositLiquidityMsgBody
	b.Amount, b.PoolParams = tlb.Grams(amount), ddPoolParams()
	b.Params.Asset0TargetBalance, b.Params.Asset1TargetBalance = 10, 20
	return call(ddTonVault, 300_000_000, cellOf(op(abi.DedustDepositLiquidityMsgOpCode), tlbOf(b)), then...)
}

// ddJettonDeposit is the jetton transfer of amount to the jetton vault with
// the deposit_liquidity#40e108d6 forward payload; then hangs below the
// vault's transfer_notification.
func ddJettonDeposit(amount uint64, then ...*stx) *stx {
	var p abi.DedustDepositLiquidityJettonPayload
	p.PoolParams = ddPoolParams()
	p.Asset0TargetBalance, p.Asset1TargetBalance = 10, 20
	payload := abi.JettonPayload{SumType: abi.DedustDepositLiquidityJettonOp, Value: p}
	j := jetton{amount: amount, to: ddJetVault, from: ddWallet, response: ddWallet, payload: cellOf(tlbOf(payload))}
	return call(ddUserJW, 300_000_000, j.transfer(),
		call(ddVaultJW, 290_000_000, j.internal(),
			call(ddJetVault, 200_000_000, j.notify(), then...),
			call(ddWallet, 10_000_000, excesses(0))))
}

// ddAsk is the vault asking the factory (0xf04ec526), which sends the
// deposit contract its code and data (0x9b3aa3fa) and tops it up
// (0x54240fe5); then hangs below the top-up.
func ddAsk(then ...*stx) *stx {
	return call(ddFactory, 100_000_000, opQuery(0xf04ec526, 0),
		call(ddDeposit, 10_000_000, opQuery(0x9b3aa3fa, 0)),
		call(ddDeposit, 50_000_000, opQuery(0x54240fe5, 0), then...))
}

// ddPoolMint is the deposit contract's deposit_liquidity_all#b56b9598 to
// the pool for owner ddWallet with the reserves it collected (10 TON and
// 20 of the jetton), and the pool minting 14 LP jettons to the owner.
func ddPoolMint() *stx {
	var b abi.DedustDepositLiquidityAllMsgBody
	b.OwnerAddr = msgAddr(ddWallet)
	b.Proof = tlb.Any(*cellOf(u64(0)))
	b.Field4.Asset0.SumType = "Native"
	b.Field4.Asset1.SumType = "Jetton"
	b.Field4.Asset1.Jetton.Address = tlb.Bits256(ton.MustParseAccountID(ddMaster).Address)
	b.Field4.Asset0Amount, b.Field4.Asset1Amount = varCoins(10), varCoins(20)
	lp := jetton{amount: 14, from: ddPool, response: ddWallet}
	return call(ddPool, 40_000_000, cellOf(op(abi.DedustDepositLiquidityAllMsgOpCode), tlbOf(b)),
		call(ddLPJW, 30_000_000, lp.internal(), call(ddWallet, 10_000_000, excesses(0))))
}

// TestDedustDepositSeveralTopUps: one deposit contract collects several
// deposits (one top-up 0x54240fe5 each) before it asks the pool, which
// mints. Every branch that fed the contract is the one deposit, with each
// asset's amount summed and the user's jetton wallet, and nothing is left
// as a partial deposit or a loose transfer.
func TestDedustDepositSeveralTopUps(t *testing.T) {
	cases := []struct {
		name string
		tr   *stx
		ton  string
		txs  int // every transaction of the trace
	}{{
		// TON then the jetton, sent in one wallet message: the jetton's
		// top-up completes the deposit.
		name: "TON and jetton in one message",
		tr:   ext(ddWallet, ddTonDeposit(10, ddAsk()), ddJettonDeposit(20, ddAsk(ddPoolMint()))),
		ton:  "10", txs: 15,
	}, {
		// The jetton first, the TON completes.
		name: "jetton then TON",
		tr:   ext(ddWallet, ddJettonDeposit(20, ddAsk()), ddTonDeposit(10, ddAsk(ddPoolMint()))),
		ton:  "10", txs: 15,
	}, {
		// Three top-ups: TON in two deposit_liquidity messages (4 and 6),
		// then the jetton.
		name: "TON twice, then the jetton",
		tr:   ext(ddWallet, ddTonDeposit(4, ddAsk()), ddTonDeposit(6, ddAsk()), ddJettonDeposit(20, ddAsk(ddPoolMint()))),
		ton:  "10", txs: 19,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := classify(t, tc.tr, nil).only(t, "DexDepositLiquidity:ok")
			a.want(t, map[string]any{"dex": "dedust", "sender": ddWallet, "pool": ddPool, "deposit_contract": ddDeposit,
				"asset_1": nil, "amount_1": tc.ton, "user_jetton_wallet_1": nil,
				"asset_2": ddMaster, "amount_2": "20", "user_jetton_wallet_2": ddUserJW,
				"target_asset_1": nil, "target_amount_1": "10", "target_asset_2": ddMaster, "target_amount_2": "20",
				"lp_amount": "14", "lp_wallet": ddLPJW})
			a.wantTxs(t, tc.txs)
		})
	}
}

// TestDedustPartialSeveralTopUps: several top-ups of one deposit contract
// in one trace that do not yet reach the pool (the targets ask for more)
// are one deposit without pool, with every asset the trace brought.
func TestDedustPartialSeveralTopUps(t *testing.T) {
	t.Run("TON and jetton in one message", func(t *testing.T) {
		tr := ext(ddWallet, ddTonDeposit(4, ddAsk()), ddJettonDeposit(20, ddAsk()))
		a := classify(t, tr, nil).only(t, "DexDepositLiquidity:ok")
		a.want(t, map[string]any{"dex": "dedust", "sender": ddWallet, "pool": nil, "deposit_contract": ddDeposit,
			"asset_1": nil, "amount_1": "4", "user_jetton_wallet_1": nil,
			"asset_2": ddMaster, "amount_2": "20", "user_jetton_wallet_2": ddUserJW,
			"target_asset_1": nil, "target_amount_1": "10", "target_asset_2": ddMaster, "target_amount_2": "20",
			"lp_amount": nil})
		a.wantTxs(t, 12)
	})
	t.Run("TON twice", func(t *testing.T) {
		tr := ext(ddWallet, ddTonDeposit(4, ddAsk()), ddTonDeposit(3, ddAsk()))
		a := classify(t, tr, nil).only(t, "DexDepositLiquidity:ok")
		a.want(t, map[string]any{"sender": ddWallet, "pool": nil, "deposit_contract": ddDeposit,
			"asset_1": nil, "amount_1": "7", "asset_2": nil, "amount_2": nil, "target_amount_1": "10", "target_amount_2": "20"})
		a.wantTxs(t, 9)
	})
}
