package actions_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// fixtureActions classifies every toncenter trace of the fixtures: each
// file's actions, steps included.
func fixtureActions(t *testing.T) map[string][]chain.Action {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	if len(files) == 0 {
		t.Skip("no toncenter traces in the fixtures")
	}
	out := map[string][]chain.Action{}
	for _, f := range files {
		out[filepath.Base(f)] = classifyFile(t, f, nil)
	}
	return out
}

// TestStepsAreNested checks, on every real trace, what a store and a
// client rely on: a step names a parent of the same trace whose type has
// steps, lies within the parent's transactions, is not the parent found
// again, and carries its parent's type before the parent's ancestors; a
// first-version type never has steps; ids stay unique.
func TestStepsAreNested(t *testing.T) {
	parents := map[string]bool{}
	var steps int
	for file, list := range fixtureActions(t) {
		byID := map[string]chain.Action{}
		for _, a := range list {
			if _, dup := byID[a.ActionID]; dup {
				t.Fatalf("%s: action id %s twice", file, a.ActionID)
			}
			byID[a.ActionID] = a
		}
		for _, a := range list {
			if a.ParentActionID == "" {
				if len(a.Ancestors) != 0 {
					t.Errorf("%s: top-level %s has ancestors %v", file, a.Type, a.Ancestors)
				}
				continue
			}
			steps++
			p, ok := byID[a.ParentActionID]
			switch {
			case !ok:
				t.Fatalf("%s: %s names a parent that is not among the actions", file, a.Type)
			case !actions.HasSteps(p.Type):
				t.Errorf("%s: %s is a step of %s, a type without steps", file, a.Type, p.Type)
			case a.Type == p.Type:
				t.Errorf("%s: %s is a step of itself", file, a.Type)
			case a.Type == "ContractDeploy" || a.Type == "Unknown":
				t.Errorf("%s: a %s step", file, a.Type)
			case !slices.Equal(a.Ancestors, append([]string{p.Type}, p.Ancestors...)):
				t.Errorf("%s: %s under %s%v has ancestors %v", file, a.Type, p.Type, p.Ancestors, a.Ancestors)
			case a.TraceID != p.TraceID:
				t.Errorf("%s: %s is in another trace than its parent", file, a.Type)
			}
			for _, h := range a.Transactions {
				if !slices.Contains(p.Transactions, h) {
					t.Errorf("%s: %s step has transaction %s its parent %s lacks", file, a.Type, h, p.Type)
				}
			}
			parents[p.Type] = true
		}
	}
	// The fixtures hold about 30 protocols' newer types: most must show
	// their steps, or the test proves nothing.
	if len(parents) < 20 || steps < 100 {
		t.Errorf("steps under %d parent types (%d steps), want at least 20 types and 100 steps", len(parents), steps)
	}
}

// TestStepsMoveWhatTheParentReports: a jetton transfer that is a step of a
// newer action (a stake, a supply, a bridge send, a claim, a pool's
// creation) is between accounts the parent names, and what the parent's
// sender puts in is the amount the parent reports: the steps are the
// parent's own movements, seen as the first version's types.
func TestStepsMoveWhatTheParentReports(t *testing.T) {
	var checked int
	for file, list := range fixtureActions(t) {
		byID := map[string]chain.Action{}
		for _, a := range list {
			byID[a.ActionID] = a
		}
		for _, a := range list {
			if a.ParentActionID == "" || a.Type != "JettonTransfer" {
				continue
			}
			var v struct{ Amount, Sender, Recipient string }
			if err := json.Unmarshal(a.Value, &v); err != nil {
				t.Fatal(err)
			}
			p := byID[a.ParentActionID]
			pv := string(p.Value)
			var ps struct{ Sender string }
			if err := json.Unmarshal(p.Value, &ps); err != nil {
				t.Fatal(err)
			}
			// What the user puts in is reported as is; a payout may be
			// net of the protocol's fee (a forced unstake's penalty).
			if v.Sender == ps.Sender {
				checked++
				if v.Amount == "" || !strings.Contains(pv, `"`+v.Amount+`"`) {
					t.Errorf("%s: %s's jetton transfer step moves %s, which the parent does not report: %s", file, p.Type, v.Amount, pv)
				}
			}
			if !strings.Contains(pv, v.Sender) && !strings.Contains(pv, v.Recipient) {
				t.Errorf("%s: %s's jetton transfer step is between %s and %s, neither named by the parent", file, p.Type, v.Sender, v.Recipient)
			}
		}
	}
	if checked < 8 {
		t.Errorf("%d jetton deposits checked, want at least 8", checked)
	}
}

// TestPurchaseSteps: the Getgems sale purchase of the fixtures is one
// NftPurchase at the top; its steps are what a client pinned to the
// first version shows instead, as toncenter's indexer lists them: the
// item's transfer to the buyer as a purchase (price, seller) and the
// payout to the seller.
func TestPurchaseSteps(t *testing.T) {
	all := resultsOf(t, classifyFile(t, filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces",
		"mG5NGg-37hpz1Vgs5KvDo0HKgtQKCnMbmGEpdApY5Ls=.json"), nil))
	p := all.top().one(t, "NftPurchase:ok")
	var pv struct{ Buyer, Seller, Nft, Price, PayoutAmount string }
	p.decode(t, &pv)
	pv.PayoutAmount = p.v["payout_amount"].(string)
	steps := all.stepsOf(p)
	steps.expect(t, "NftItemTransfer:ok", "TonTransfer:ok")
	steps.one(t, "NftItemTransfer").want(t, map[string]any{"recipient": pv.Buyer, "nft": pv.Nft, "is_purchase": true,
		"price": pv.Price, "seller": pv.Seller})
	steps.one(t, "TonTransfer").want(t, map[string]any{"recipient": pv.Seller, "amount": pv.PayoutAmount})
}

// TestCoffeePoolNestsItsCreator: the branch that completes a swap.coffee
// pool creator is one CoffeeCreatePool at the top; the creator's part of
// it (the asset in, the vault's request, the creator's deploy) is its
// CoffeeCreatePoolCreator step, as toncenter nests it, and that step has
// steps of its own (two levels of ancestors).
func TestCoffeePoolNestsItsCreator(t *testing.T) {
	var pools int
	for file, list := range fixtureActions(t) {
		all := resultsOf(t, list)
		for _, p := range all.top().ofKind("CoffeeCreatePool") {
			pools++
			creator := all.stepsOf(p).one(t, "CoffeeCreatePoolCreator")
			creator.want(t, map[string]any{"sender": p.v["sender"], "pool_creator_contract": p.v["pool_creator_contract"],
				"amount": p.v["amount"]})
			inner := all.stepsOf(creator)
			if len(inner) == 0 {
				t.Errorf("%s: the creator step has no steps of its own", file)
			}
			for _, s := range inner {
				if !slices.Equal(s.Ancestors, []string{"CoffeeCreatePoolCreator", "CoffeeCreatePool"}) {
					t.Errorf("%s: %s under the creator has ancestors %v", file, s.Type, s.Ancestors)
				}
			}
		}
	}
	if pools == 0 {
		t.Fatal("no CoffeeCreatePool in the fixtures")
	}
}

// TestLayerzeroTokenSendSteps: a LayerZero token send's steps are the
// jetton leg to the OApp and the send itself (toncenter nests its
// layerzero_send in layerzero_send_tokens), carrying the parent's amount
// and request.
func TestLayerzeroTokenSendSteps(t *testing.T) {
	var sends int
	for _, list := range fixtureActions(t) {
		all := resultsOf(t, list)
		for _, p := range all.top().ofKind("LayerzeroSendTokens") {
			sends++
			steps := all.stepsOf(p)
			steps.one(t, "LayerzeroSend").want(t, map[string]any{"sender": p.v["oapp"], "send_request_id": p.v["send_request_id"],
				"endpoint": p.v["endpoint"]})
			steps.one(t, "JettonTransfer").want(t, map[string]any{"sender": p.v["sender"], "amount": p.v["amount"]})
		}
	}
	if sends == 0 {
		t.Fatal("no LayerzeroSendTokens in the fixtures")
	}
}

// TestLogsAreNotSteps: a tgBTC action's logs are what its pattern read;
// the log-only fallback types stand for a flow whose messages are missing
// and never appear as steps of the full action.
func TestLogsAreNotSteps(t *testing.T) {
	var parents int
	for file, list := range fixtureActions(t) {
		all := resultsOf(t, list)
		for _, p := range all.top() {
			if !strings.HasPrefix(p.Type, "Tgbtc") || strings.HasSuffix(p.Type, "Fallback") {
				continue
			}
			parents++
			for _, s := range all.stepsOf(p) {
				if strings.HasSuffix(s.Type, "Fallback") {
					t.Errorf("%s: %s is a step of %s", file, s.Type, p.Type)
				}
			}
		}
	}
	if parents == 0 {
		t.Fatal("no tgBTC action in the fixtures")
	}
}

// TestStepRunsSkipNothing: a run for steps starts at the matcher that
// found the parent (steps.go); on every fixture trace its steps are those
// of a run through every matcher.
func TestStepRunsSkipNothing(t *testing.T) {
	fast := fixtureActions(t)
	restore := actions.FullStepRuns()
	full := fixtureActions(t)
	restore()
	var steps int
	for file, list := range full {
		if !reflect.DeepEqual(fast[file], list) {
			t.Errorf("%s: the steps differ from a full run's", file)
		}
		for _, a := range list {
			if a.ParentActionID != "" {
				steps++
			}
		}
	}
	if steps == 0 {
		t.Fatal("no steps in the fixtures")
	}
}
