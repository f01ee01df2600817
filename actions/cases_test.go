package actions_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// fieldMap translates the toncenter case fields (dotted paths into the
// expected values) to our value fields, per toncenter type. Fields not
// listed are details we do not model (yet).
var fieldMap = map[string]map[string]string{
	"ton_transfer": {"source": "sender", "destination": "recipient", "value": "amount",
		"ton_transfer_data.content": "comment", "ton_transfer_data.encrypted": "encrypted"},
	"jetton_transfer": {"source": "sender", "source_secondary": "sender_wallet", "destination": "recipient",
		"destination_secondary": "recipient_wallet", "asset": "jetton_master", "amount": "amount"},
	"nft_transfer": {"source": "sender", "destination": "recipient", "asset_secondary": "nft", "asset": "collection"},
	"jetton_mint": {"destination": "recipient", "destination_secondary": "recipient_wallet",
		"asset": "jetton_master", "amount": "amount"},
	"jetton_burn": {"source": "owner", "source_secondary": "jetton_wallet", "asset": "jetton_master", "amount": "amount"},
	"nft_purchase": {"destination": "buyer", "asset_secondary": "nft", "asset": "collection",
		"nft_transfer_data.price": "price"},
	"jetton_swap": {"jetton_swap_data.dex": "dex", "jetton_swap_data.sender": "sender",
		"jetton_swap_data.dex_incoming_transfer.amount": "amount_in",
		"jetton_swap_data.dex_outgoing_transfer.amount": "amount_out",
		"jetton_swap_data.dex_incoming_transfer.asset":  "jetton_master_in",
		"jetton_swap_data.dex_outgoing_transfer.asset":  "jetton_master_out"},
	"contract_deploy": {"destination": "address"},
	"call_contract":   {"source": "sender", "destination": "contract"},
	// DeDust-style deposits: the target amounts are what the pool is
	// asked to add for both assets (amount1/amount2 are per-branch).
	"dex_deposit_liquidity": {"source": "sender", "destination": "pool",
		"dex_deposit_liquidity_data.dex":              "dex",
		"dex_deposit_liquidity_data.lp_tokens_minted": "lp_amount",
		"dex_deposit_liquidity_data.target_asset_1":   "asset_1",
		"dex_deposit_liquidity_data.target_amount_1":  "amount_1",
		"dex_deposit_liquidity_data.target_asset_2":   "asset_2",
		"dex_deposit_liquidity_data.target_amount_2":  "amount_2"},
}

// typeMap is the name mapping of the fixtures README.
var typeMap = map[string]string{
	"ton_transfer": chain.TonTransfer, "jetton_transfer": chain.JettonTransfer,
	"nft_transfer": chain.NftItemTransfer, "contract_deploy": chain.ContractDeploy,
	"jetton_burn": chain.JettonBurn, "jetton_mint": chain.JettonMint,
	"nft_purchase": chain.NftPurchase, "call_contract": chain.SmartContractExec,
	"jetton_swap": chain.JettonSwap, "dex_deposit_liquidity": chain.DexDepositLiquidity,
}

// mustMatch are the types whose every expected action must be found.
var mustMatch = map[string]bool{
	chain.TonTransfer: true, chain.JettonTransfer: true, chain.NftItemTransfer: true,
	chain.JettonMint: true, chain.JettonBurn: true,
}

// atLeast guards the types not asserted one by one against regressions:
// the number of expected actions found today (JettonSwap: all 17 since
// Coffee and Tonco are recognized; it stays a count because a swap's
// expected values are checked on the closest candidate, not one by one).
//
// DexDepositLiquidity: all 12 (5 DeDust deposits, and Coffee's and Tonco's
// reported one action per asset sent, as toncenter does).
var atLeast = map[string]int{chain.JettonSwap: 17, chain.DexDepositLiquidity: 12}

type caseFile struct {
	Cases map[string]struct {
		TraceID  string `yaml:"trace-id"`
		Expected []struct {
			Type    string         `yaml:"type"`
			Success *bool          `yaml:"success"`
			Values  map[string]any `yaml:"values"`
		} `yaml:"expected-actions"`
	} `yaml:"cases"`
}

func TestToncenterCases(t *testing.T) {
	dir := filepath.Join(testenv.FixturesDir(t), "toncenter-traces")
	files, _ := filepath.Glob(filepath.Join(dir, "cases", "*.yaml"))
	if len(files) == 0 {
		t.Skip("no cases")
	}
	found, total := map[string]int{}, map[string]int{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf caseFile
		if err := yaml.Unmarshal(raw, &cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, cs := range cf.Cases {
			got := classifyFile(t, traceFile(filepath.Join(dir, "traces"), cs.TraceID))
			for _, exp := range cs.Expected {
				ours, mapped := typeMap[exp.Type]
				if !mapped {
					continue
				}
				total[ours]++
				want := flatten("", exp.Values)
				if exp.Success != nil {
					want["success"] = *exp.Success
				}
				miss := bestMismatch(got, ours, exp.Type, want)
				if miss == "" {
					found[ours]++
					continue
				}
				if mustMatch[ours] {
					t.Errorf("%s (%s): %s %s", name, cs.TraceID, ours, miss)
				} else {
					t.Logf("miss %s (%s): %s %s", name, cs.TraceID, ours, miss)
				}
			}
		}
	}
	types := make([]string, 0, len(total))
	for k := range total {
		types = append(types, k)
	}
	sort.Strings(types)
	for _, k := range types {
		t.Logf("recall %-17s %d/%d = %.0f%%", k, found[k], total[k], 100*float64(found[k])/float64(total[k]))
		if found[k] < atLeast[k] {
			t.Errorf("%s recall fell to %d/%d (was %d)", k, found[k], total[k], atLeast[k])
		}
	}
}

// traceFile finds a trace by id: file names use the url-safe alphabet,
// except for some that kept '+'.
func traceFile(dir, traceID string) string {
	name := strings.ReplaceAll(traceID, "/", "_")
	for _, n := range []string{strings.ReplaceAll(name, "+", "-"), name} {
		p := filepath.Join(dir, n+".json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(dir, name+".json")
}

func classifyFile(t testing.TB, path string) []chain.Action {
	t.Helper()
	tr, err := chain.ParseToncenterFile(path)
	if err != nil {
		t.Fatal(err)
	}
	traces := chain.NewAssembler().Add(tr.Transactions)
	var out []chain.Action
	for _, trace := range traces {
		out = append(out, actions.Classify(trace, tr.Known)...)
	}
	return out
}

// bestMismatch returns "" when one of our actions of the type carries every
// mapped expected field, else what differed on the closest candidate.
func bestMismatch(got []chain.Action, ours, theirs string, want map[string]any) string {
	best := "no action of this type"
	bestN := -1
	for _, a := range got {
		if a.Type != ours {
			continue
		}
		var v map[string]any
		_ = json.Unmarshal(a.Value, &v)
		var diffs []string
		for k, w := range want {
			if w == nil {
				continue
			}
			if k == "success" {
				if (a.Status == chain.StatusOK) != w.(bool) {
					diffs = append(diffs, fmt.Sprintf("status=%s want success=%v", a.Status, w))
				}
				continue
			}
			field, ok := fieldMap[theirs][k]
			if !ok {
				continue
			}
			if g := fmt.Sprint(v[field]); g != fmt.Sprint(w) {
				diffs = append(diffs, fmt.Sprintf("%s=%v want %v", field, v[field], w))
			}
		}
		if len(diffs) == 0 {
			return ""
		}
		if bestN < 0 || len(diffs) < bestN {
			bestN, best = len(diffs), strings.Join(diffs, ", ")
		}
	}
	return best
}

func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			for k2, v2 := range flatten(prefix+k+".", sub) {
				out[k2] = v2
			}
			continue
		}
		out[prefix+k] = v
	}
	return out
}
