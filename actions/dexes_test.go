package actions_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// TestCoffeeToncoSwaps checks, over every toncenter fixture trace that asks
// a Coffee (swap_internal) or Tonco (poolv3_swap) pool to swap, what the
// cases files do not: every DEX step (vaults, pools, routers, payouts)
// belongs to a JettonSwap, so no call of those op codes is left over as a
// SmartContractExec; and a Tonco swap whose TON came back through the pTON
// wallet that took it in (the pool refused the price) is failed, with
// amount_out = amount_in.
func TestCoffeeToncoSwaps(t *testing.T) {
	dir := filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	dexOps := map[uint32]string{uint32(abi.CoffeeSwapInternalMsgOpCode): "coffee", uint32(abi.Poolv3SwapMsgOpCode): "tonco"}
	seen, refunds := map[string]int{}, 0
	for _, f := range files {
		dex, refund := inspectDexTrace(t, f, dexOps)
		if dex == "" {
			continue
		}
		seen[dex]++
		got := classifyFile(t, f, nil)
		swaps := 0
		for _, a := range got {
			var v map[string]any
			_ = json.Unmarshal(a.Value, &v)
			switch {
			case a.Type == "JettonSwap" && v["dex"] == dex:
				swaps++
				if refund {
					refunds++
					if a.Status != chain.StatusFailed || v["amount_in"] != v["amount_out"] {
						t.Errorf("%s: refund decoded as %s, in %v out %v", filepath.Base(f), a.Status, v["amount_in"], v["amount_out"])
					}
				}
			case a.Type == "SmartContractExec" && isDexStep(v["opcode"]):
				t.Errorf("%s: DEX step left over: %s", filepath.Base(f), a.Value)
			}
		}
		if swaps == 0 {
			t.Errorf("%s: no %s JettonSwap", filepath.Base(f), dex)
		}
	}
	if seen["coffee"] == 0 || seen["tonco"] == 0 || refunds == 0 {
		t.Fatalf("fixtures lack Coffee or Tonco swaps or a Tonco refund: %v, %d refunds", seen, refunds)
	}
}

// isDexStep: Coffee's own op codes (0xc0ffee..), Tonco's poolv3_swap and
// pay_to, and pTON's ton_transfer.
func isDexStep(op any) bool {
	s, _ := op.(string)
	return strings.HasPrefix(s, "0xc0ffee") || s == "0xa7fb58f8" || s == "0xa1daa96d" || s == "0x01f3835d"
}

// inspectDexTrace names the DEX whose pool request the trace holds, and
// whether a pTON wallet sent ton_transfer back to the account that sent it
// ton_transfer (TON in and straight back out: a refund).
func inspectDexTrace(t *testing.T, path string, dexOps map[uint32]string) (dex string, refund bool) {
	t.Helper()
	tr, err := chain.ParseToncenterFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tonIn := map[string]string{} // pTON wallet -> who sent it TON
	for _, tx := range tr.Transactions {
		m := tx.InMsg
		if m == nil || m.Opcode == nil || m.Bounced {
			continue
		}
		if d, ok := dexOps[*m.Opcode]; ok {
			dex = d
		}
		if *m.Opcode == uint32(abi.PtonTonTransferMsgOpCode) {
			tonIn[m.Destination] = m.Source
		}
	}
	for _, tx := range tr.Transactions {
		m := tx.InMsg
		if m != nil && m.Opcode != nil && *m.Opcode == uint32(abi.PtonTonTransferMsgOpCode) && tonIn[m.Source] == m.Destination {
			refund = true
		}
	}
	return dex, refund
}
