package actions_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

func init() {
	setFloor("DexDepositLiquidity", 12, 12)
}

// TestCoffeeToncoDeposits checks, over every fixture trace holding a Coffee
// depository request or a Tonco fund_account, what the cases do not: the
// whole trace is explained by the deposit (its vaults, routers, refunds and
// jetton moves are no separate JettonTransfer or SmartContractExec; only
// the contracts it deploys stay ContractDeploy), and exactly one branch,
// the one that completed the deposit, carries the LP amount. When one
// wallet message sent both branches, the branch that only funds the
// deposit comes first (the wallet's transaction is its).
func TestCoffeeToncoDeposits(t *testing.T) {
	dir := filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	anchors := map[uint32]string{
		uint32(abi.CoffeeCreateLiquidityDepositoryRequestMsgOpCode): "coffee",
		uint32(abi.Poolv3FundAccountMsgOpCode):                      "tonco",
	}
	seen := map[string]int{}
	for _, f := range files {
		dex, _ := inspectDexTrace(t, f, anchors)
		if dex == "" {
			continue
		}
		seen[dex]++
		withLP, branches := 0, 0
		firstHasLP := false
		for _, a := range classifyFile(t, f, nil) {
			var v map[string]any
			_ = json.Unmarshal(a.Value, &v)
			switch {
			case a.Type == "DexDepositLiquidity" && v["dex"] == dex:
				if branches == 0 {
					firstHasLP = v["lp_amount"] != nil
				}
				branches++
				if v["lp_amount"] != nil {
					withLP++
				}
			case a.Type != "ContractDeploy":
				t.Errorf("%s: %s left over: %s", filepath.Base(f), a.Type, a.Value)
			}
		}
		if withLP != 1 {
			t.Errorf("%s: %d %s deposit branches with an LP amount, want 1", filepath.Base(f), withLP, dex)
		}
		if branches > 1 && firstHasLP {
			t.Errorf("%s: the completing %s branch comes first", filepath.Base(f), dex)
		}
	}
	if seen["coffee"] == 0 || seen["tonco"] == 0 {
		t.Fatalf("fixtures lack Coffee or Tonco deposits: %v", seen)
	}
}

// TestDedustDeposits checks, over every fixture trace whose pool got
// deposit_liquidity_all, that the branches feeding one deposit contract
// are one action (no partial deposit besides it) and that nothing but the
// deposit contract's deploy is left over.
func TestDedustDeposits(t *testing.T) {
	dir := filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	seen := 0
	for _, f := range files {
		if dex, _ := inspectDexTrace(t, f, map[uint32]string{uint32(abi.DedustDepositLiquidityAllMsgOpCode): "dedust"}); dex == "" {
			continue
		}
		seen++
		deposits := 0
		for _, a := range classifyFile(t, f, nil) {
			switch a.Type {
			case "DexDepositLiquidity":
				deposits++
			case "ContractDeploy":
			default:
				t.Errorf("%s: %s left over: %s", filepath.Base(f), a.Type, a.Value)
			}
		}
		if deposits != 1 {
			t.Errorf("%s: %d deposits, want 1", filepath.Base(f), deposits)
		}
	}
	if seen == 0 {
		t.Fatal("fixtures lack DeDust deposits")
	}
}

// TestGoldenLiquidity pins whole real traces of the liquidity family.
func TestGoldenLiquidity(t *testing.T) {
	hasOp := func(op abi.MsgOpCode) func(tr *chain.Trace) bool {
		return func(tr *chain.Trace) bool {
			return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, op) })
		}
	}
	checkGoldens(t, []goldenCase{
		{
			// Tonco deposit, both assets from one wallet message: USDT by
			// a jetton transfer, TON through the router's wTTON wallet
			// (ton_transfer 0x01f3835d). The TON branch's account contract
			// records 3029999999827 and waits; the USDT branch's account
			// asks the pool to mint: the position NFT #3086, liquidity
			// 1398855824493, and the router pays back 29999999998 TON and
			// 57085786 USDT. Right: two DexDepositLiquidity ok, one per
			// branch; only the USDT one carries the LP amount, the NFT and
			// the excesses; targets are the pool's TON/USDT sides
			// (2999999999829, 5708578661); the TON branch comes first and
			// owns the wallet's transaction; the NFT's deploy is a
			// ContractDeploy by the pool.
			name: "tonco_deposit_two_branches",
			file: "toncenter-traces/traces/0GW2kNF4nRhw5xA3b5E35-EhF9H25H3Nvm5MJJo2VD0=.json",
			pick: hasOp(abi.Poolv3MintMsgOpCode),
			want: []string{"ContractDeploy:ok", "DexDepositLiquidity:ok", "DexDepositLiquidity:ok"},
		},
		{
			// DeDust deposit of two jettons from one wallet message; the
			// pool rejects it (0xe1a36cd4) and the deposit contract has
			// both vaults send the jettons back. Right: one
			// DexDepositLiquidity, failed, no LP; both assets with the
			// user's wallets; vault_excesses = the two full amounts; the
			// deposit contract's deploy is a ContractDeploy.
			name: "dedust_deposit_rejected",
			file: "toncenter-traces/traces/OcT5DRJbqONuQtvqFmASdvE2GTh6lYwdhfegRrWUvac=.json",
			pick: hasOp(abi.DedustDepositLiquidityAllMsgOpCode),
			want: []string{"ContractDeploy:ok", "DexDepositLiquidity:failed"},
		},
		{
			// Tonco withdrawal: start_burn at the pool, position_burn at
			// NFT #518, poolv3_burn back, pay_to (exit code 201) at the
			// router, which pays 2819110797 of one jetton and 76746 USDT
			// from its wallets. Right: one DexWithdrawLiquidity ok with the
			// burnt liquidity 705116822387, ticks -30/50, both payouts in
			// the pool's jetton0/jetton1 order.
			name: "tonco_withdraw",
			file: "toncenter-traces/traces/1XI-Ow6YCL6VR21r5rojRYf_G7dwTdv5paVEhJolZB4=.json",
			pick: hasOp(abi.PayToMsgOpCode),
			want: []string{"DexWithdrawLiquidity:ok"},
		},
	})
}

// The parties of the synthetic DeDust partial deposits.
var (
	ddWallet   = named("dedust user wallet")
	ddTonVault = named("dedust TON vault")
	ddJetVault = named("dedust jetton vault")
	ddVaultJW  = named("dedust jetton vault's wallet")
	ddUserJW   = named("dedust user jetton wallet")
	ddFactory  = named("dedust factory")
	ddDeposit  = named("dedust deposit contract")
	ddMaster   = named("dedust jetton master")
)

func ddPoolParams() abi.DedustPoolParams {
	var p abi.DedustPoolParams
	p.PoolType.SumType = "Volatile"
	p.Asset0.SumType = "Native"
	p.Asset1.SumType = "Jetton"
	id := ton.MustParseAccountID(ddMaster)
	p.Asset1.Jetton.Address = tlb.Bits256(id.Address)
	return p
}

// ddFactoryStep: the vault asks the factory (0xf04ec526), which deploys
// the deposit contract and tops it up (0x54240fe5); nothing more: the
// other asset is still to come.
func ddFactoryStep() *stx {
	return call(ddFactory, 100_000_000, opQuery(0xf04ec526, 0),
		call(ddDeposit, 10_000_000, opQuery(0x9b3aa3fa, 0)),
		call(ddDeposit, 50_000_000, opQuery(0x54240fe5, 0)))
}

func TestDedustPartialDeposit(t *testing.T) {
	t.Run("TON first", func(t *testing.T) {
		// Right: a deposit without pool: the user funded 10 TON of a TON /
		// jetton deposit whose targets are 10 and 20.
		var b abi.DedustDepositLiquidityMsgBody
		b.Amount, b.PoolParams = 10, ddPoolParams()
		b.Params.Asset0TargetBalance, b.Params.Asset1TargetBalance = 10, 20
		tr := ext(ddWallet, call(ddTonVault, 300_000_000, cellOf(op(abi.DedustDepositLiquidityMsgOpCode), tlbOf(b)), ddFactoryStep()))
		a := classify(t, tr, nil).only(t, "DexDepositLiquidity:ok")
		a.want(t, map[string]any{"dex": "dedust", "sender": ddWallet, "pool": nil, "deposit_contract": ddDeposit,
			"asset_1": nil, "amount_1": "10", "user_jetton_wallet_1": nil, "target_asset_1": nil, "target_amount_1": "10",
			"target_asset_2": ddMaster, "target_amount_2": "20", "lp_amount": nil})
	})
	t.Run("jetton first", func(t *testing.T) {
		// The jetton's notification carries the deposit parameters; the
		// jetton (unknown to the indexer) is the pool's only one.
		var p abi.DedustDepositLiquidityJettonPayload
		p.PoolParams = ddPoolParams()
		p.Asset0TargetBalance, p.Asset1TargetBalance = 10, 20
		payload := abi.JettonPayload{SumType: abi.DedustDepositLiquidityJettonOp, Value: p}
		tr := ext(ddWallet, call(ddUserJW, 300_000_000, jetton{amount: 20, to: ddJetVault, response: ddWallet}.transfer(),
			call(ddVaultJW, 290_000_000, jetton{amount: 20, from: ddWallet, response: ddWallet}.internal(),
				call(ddJetVault, 200_000_000, jetton{amount: 20, from: ddWallet, payload: cellOf(tlbOf(payload))}.notify(), ddFactoryStep()))))
		a := classify(t, tr, nil).only(t, "DexDepositLiquidity:ok")
		a.want(t, map[string]any{"sender": ddWallet, "deposit_contract": ddDeposit, "asset_1": ddMaster,
			"amount_1": "20", "user_jetton_wallet_1": ddUserJW, "target_asset_2": ddMaster})
	})
}
