package actions_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/internal/testenv"
)

// TestCoffeeToncoDeposits checks, over every fixture trace holding a Coffee
// depository request or a Tonco fund_account, what the cases do not: the
// whole trace is explained by the deposit (its vaults, routers, refunds and
// jetton moves are no separate JettonTransfer or SmartContractExec; only
// the contracts it deploys stay ContractDeploy), and exactly one branch,
// the one that completed the deposit, carries the LP amount.
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
		withLP := 0
		for _, a := range classifyFile(t, f) {
			var v map[string]any
			_ = json.Unmarshal(a.Value, &v)
			switch {
			case a.Type == "DexDepositLiquidity" && v["dex"] == dex:
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
	}
	if seen["coffee"] == 0 || seen["tonco"] == 0 {
		t.Fatalf("fixtures lack Coffee or Tonco deposits: %v", seen)
	}
}
