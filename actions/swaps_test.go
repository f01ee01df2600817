package actions_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("JettonSwap", 17, 17)
}

// swapDetailFloor is how many labelled jetton_swap details of the cases
// match our JettonSwap field for field (TestSwapDetails).
const swapDetailFloor = 17

// TestSwapDetails holds every labelled jetton_swap of the cases to what
// score_classify.py does not check: each fact of toncenter's details
// (dex, sender, both transfers' asset, amount, source, destination and
// jetton wallets, every peer swap, min_out_amount) and the action's asset
// and asset2, field for field, with null meaning absent. The swap is the
// JettonSwap of the labelled dex whose incoming amount is the labelled one.
func TestSwapDetails(t *testing.T) {
	total, exact := 0, 0
	forEachCase(t, func(f, name, trace string, cs labelledCase) {
		var ours []map[string]string
		for _, exp := range cs.Expected {
			if exp.Type != "jetton_swap" {
				continue
			}
			if ours == nil {
				for _, a := range classifyFile(t, trace, nil) {
					if a.Type == "JettonSwap" {
						var v any
						_ = json.Unmarshal(a.Value, &v)
						flat := map[string]string{"@status": a.Status}
						flatten("", v, flat)
						ours = append(ours, flat)
					}
				}
			}
			want := labelledSwap(fromYAML(&exp.Values))
			total++
			got := pickSwap(ours, want)
			if got == nil {
				t.Logf("%s | %s: no JettonSwap of dex %s in %s", filepath.Base(f), name, want["dex"], want["dex_incoming_transfer.amount"])
				continue
			}
			var diffs []string
			keys := make([]string, 0, len(want))
			for k := range want {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !strings.EqualFold(got[k], want[k]) {
					diffs = append(diffs, fmt.Sprintf("%s=%q want %q", k, got[k], want[k]))
				}
			}
			// Peer swaps we have beyond what the label lists.
			for k := range got {
				if strings.HasPrefix(k, "peer_swaps") {
					if _, ok := want[k]; !ok && want["peer_swaps"] == "" {
						diffs = append(diffs, fmt.Sprintf("%s=%q not labelled", k, got[k]))
					}
				}
			}
			if len(diffs) == 0 {
				exact++
			} else {
				t.Logf("%s | %s | %s:\n  %s", filepath.Base(f), name, want["dex"], strings.Join(diffs, "\n  "))
			}
		}
	})
	t.Logf("jetton_swap details: %d/%d field for field", exact, total)
	if exact < swapDetailFloor {
		t.Errorf("jetton_swap details fell to %d (floor %d)", exact, swapDetailFloor)
	}
}

// labelledSwap flattens a label's values into our field paths: the
// details (jetton_swap_data, nested or as dotted keys) and the action's
// asset and asset2. "" means null (absent).
func labelledSwap(values any) map[string]string {
	m, _ := values.(map[string]any)
	details := map[string]any{}
	for k, v := range m {
		switch {
		case k == "jetton_swap_data":
			for k2, v2 := range v.(map[string]any) {
				details[k2] = v2
			}
		case strings.HasPrefix(k, "jetton_swap_data."):
			details[strings.TrimPrefix(k, "jetton_swap_data.")] = v
		}
	}
	out := map[string]string{}
	for k, v := range details {
		if k == "protocol_fee" || k == "lp_fee_base" { // not in toncenter's details model
			continue
		}
		if k == "peer_swaps" {
			if l, _ := v.([]any); len(l) == 0 {
				out["peer_swaps"] = ""
				continue
			}
		}
		flatten(strings.Replace(k, "peer_swaps[", "peer_swaps.", 1), v, out)
	}
	for k := range out {
		if strings.HasPrefix(k, "peer_swaps.") {
			out[strings.Replace(k, "]", "", 1)] = out[k]
			if strings.Contains(k, "]") {
				delete(out, k)
			}
		}
	}
	if v, ok := m["asset"]; ok {
		out["jetton_master_in"] = scalar(v)
	}
	if v, ok := m["asset2"]; ok {
		out["jetton_master_out"] = scalar(v)
	}
	if v, ok := m["success"].(bool); ok {
		out["@status"] = map[bool]string{true: "ok", false: "failed"}[v]
	}
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(join(k), e, out)
		}
	case []any:
		for i, e := range x {
			flatten(join(fmt.Sprint(i)), e, out)
		}
	default:
		out[prefix] = scalar(v)
	}
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case intLiteral:
		return string(x)
	case float64:
		return fmt.Sprintf("%.0f", x)
	default:
		return fmt.Sprint(x)
	}
}

// pickSwap: the swap of the labelled dex with the labelled incoming amount.
func pickSwap(ours []map[string]string, want map[string]string) map[string]string {
	var cands []map[string]string
	for _, o := range ours {
		if o["dex"] == want["dex"] || want["dex"] == "" {
			cands = append(cands, o)
		}
	}
	for _, o := range cands {
		if a := want["dex_incoming_transfer.amount"]; a != "" && o["dex_incoming_transfer.amount"] == a {
			return o
		}
	}
	if len(cands) == 1 {
		return cands[0]
	}
	return nil
}

func TestGoldenSwaps(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// DeDust, jettons in (a real block, ext-out logs as the block
			// has them): the user's wallet sends 302472963 jettons to the
			// vault's wallet with a swap payload; the vault asks the pool
			// (swap_external), the pool logs no swap and answers with
			// payout_from_pool, and the vault sends the same 302472963 back
			// from the same vault wallet to the same user wallet. Right: a
			// refund, JettonSwap failed, amount_out = amount_in, incoming
			// destination = the vault (its wallet as destination jetton
			// wallet), outgoing source = the vault; the request's step
			// limit is min_out_amount.
			name: "dedust_swap",
			file: "fee-replay/tvm_replay_fat_block_66519406.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.DedustSwapExternalMsgOpCode) })
			},
			want: []string{"JettonSwap:failed"},
		},
		{
			// An aggregator route (one external message) through STON.fi
			// v1, Coffee (whose jettons go on to STON.fi v2), DeDust and
			// STON.fi v2: each DEX's part is its own swap. Right: five
			// JettonSwaps, all ok: STON.fi v1 pTON in -> USDT out; STON.fi
			// v2 TON in through pTON v2 (ton_transfer) -> USDT; DeDust TON
			// in at the native vault -> USDT from the jetton vault; Coffee
			// TON in at its vault -> jettons paid to an intermediary
			// contract, which sends them on to STON.fi v2 (the fifth swap,
			// sender = that contract) -> USDT to the user. Every labelled
			// fact of the five (toncenter's coffee.yaml) is matched by
			// TestSwapDetails.
			name: "aggregator_route_swaps",
			file: "toncenter-traces/traces/cq7UujFWNfSnpHdRKseD41yHqj4Yx3SCWsnkw8IRPoU=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.DedustSwapExternalMsgOpCode) }) &&
					hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.CoffeeSwapInternalMsgOpCode) })
			},
			want: []string{"JettonSwap:ok", "JettonSwap:ok", "JettonSwap:ok", "JettonSwap:ok", "JettonSwap:ok"},
		},
	})
}
