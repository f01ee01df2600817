package actions_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// A declared type without a template (or whose template says nothing, or
// leaves a formatting error in its sentence) fails here; so does one
// without a title.
func TestEveryTypeDescribes(t *testing.T) {
	for _, typ := range actions.Types() {
		if typ.Title == "" || typ.Describe == nil {
			t.Errorf("%s: no title or no template (declare Title and Describe next to the type)", typ.Name())
			continue
		}
		for what, v := range map[string]any{"example": actions.ExampleValue(typ), "empty": typ.Value} {
			raw, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			title, s, ok := actions.Describe(typ.Name(), "ok", raw, actions.ExampleNames())
			if !ok || title != typ.Title || s == "" || strings.Contains(s, "%!") || strings.Contains(s, "  ") {
				t.Errorf("%s (%s value): %q, %q, %v", typ.Name(), what, title, s, ok)
			}
		}
	}
}

// The helpers every template writes with: symbols and decimals when the
// metadata has them, the raw amount and the master honestly when not, a
// domain when the book has one, TON to the nanoton.
func TestWords(t *testing.T) {
	n := actions.ExampleNames()
	say := func(typ, status string, v any, names actions.Names) string {
		t.Helper()
		raw, _ := json.Marshal(v)
		_, s, ok := actions.Describe(typ, status, raw, names)
		if !ok {
			t.Fatalf("%s: not described", typ)
		}
		return s
	}
	jt := actions.JettonTransfer{Recipient: actions.ExampleAlice, JettonMaster: actions.ExampleJetton, Amount: "218750000"}
	for _, c := range []struct{ got, want string }{
		{say("JettonTransfer", "ok", jt, n), "Sent 218.75 USDT to alice.ton"},
		{say("JettonTransfer", "ok", jt, actions.Names{}), "Sent 218750000 raw units of jetton 0:E7E7...00004 to 0:A11C...00001"},
		{say("JettonTransfer", "failed", jt, n), "Failed: sent 218.75 USDT to alice.ton"},
		{say("JettonSwap", "failed", actions.JettonSwap{Dex: "dedust", AmountIn: "302472963", AmountOut: "302472963"}, n),
			"Failed: swap of 0.302472963 TON on DeDust, 0.302472963 TON refunded"},
		{say("JettonSwap", "ok", actions.JettonSwap{Dex: "stonfi_v2", AmountIn: "10000000000", JettonMasterOut: actions.ExampleJetton, AmountOut: "21300000"}, n),
			"Swapped 10 TON for 21.3 USDT on STON.fi"},
		{say("SmartContractExec", "ok", actions.SmartContractExec{Contract: actions.Address("0:8C6C" + strings.Repeat("0", 55) + "AE69C"), Opcode: "0x01f3835d", Amount: "2748032020"}, n),
			"Called 0:8C6C...AE69C with op 0x01f3835d and 2.74803202 TON"},
		{say("TonTransfer", "ok", actions.TonTransfer{Recipient: actions.ExampleBob, Amount: "1", Comment: "hi"}, n),
			`Sent 0.000000001 TON to 0:B0B0...00002 with comment "hi"`},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
}

// usdtMaster is Tether's USDT master on mainnet (a public fact: symbol
// USDT, 6 decimals); the fixture traces that move USDT name it, and the
// goldens show it by symbol. Every other jetton of the fixtures has no
// metadata here, so the goldens also show the honest raw form.
const usdtMaster = "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE"

func fixtureNames() actions.Names {
	six, usdt := 6, "USDT"
	return actions.Names{Metadata: chain.Metadata{usdtMaster: {Address: usdtMaster, Kind: chain.TokenJettonMaster, Symbol: &usdt, Decimals: &six}}}
}

// TestDescriptionGoldens writes one description per declared type: of the
// first action of the type in the real fixture traces (the classifier's
// goldens in testdata, then toncenter's traces), else of the type's
// example value (ExampleValue: the types no fixture holds). Every line of
// testdata/descriptions.golden.txt was read by hand against its value (the
// golden action it names) when it was written: amounts with the right
// decimals, the right party named, nothing said that the value does not
// hold. Run with -update to rewrite it after changing a template, and
// read the diff.
func TestDescriptionGoldens(t *testing.T) {
	type found struct {
		source string
		a      chain.Action
	}
	first := map[string]found{}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.golden.json"))
	slices.Sort(files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list []chain.Action
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, a := range list {
			if _, ok := first[a.Type]; !ok {
				first[a.Type] = found{filepath.Base(f) + " " + a.ActionID, a}
			}
		}
	}
	traces, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	slices.Sort(traces)
	for _, f := range traces {
		for _, a := range classifyFile(t, f, nil) {
			if _, ok := first[a.Type]; !ok {
				first[a.Type] = found{"toncenter-traces/" + filepath.Base(f) + " " + a.ActionID, a}
			}
		}
	}
	var b strings.Builder
	b.WriteString("# type | source (fixture golden or trace, action id; or example) | status | title | description\n")
	fromFixtures := 0
	for _, typ := range actions.Types() {
		src, status, raw, names := "example", "ok", []byte(nil), actions.ExampleNames()
		if f, ok := first[typ.Name()]; ok {
			src, status, raw, names = f.source, f.a.Status, f.a.Value, fixtureNames()
			fromFixtures++
		} else {
			raw, _ = json.Marshal(actions.ExampleValue(typ))
		}
		title, s, ok := actions.Describe(typ.Name(), status, raw, names)
		if !ok {
			t.Errorf("%s: not described", typ.Name())
		}
		fmt.Fprintf(&b, "%s | %s | %s | %s | %s\n", typ.Name(), src, status, title, s)
	}
	t.Logf("%d types described from fixture traces, %d from examples", fromFixtures, len(actions.Types())-fromFixtures)
	compareGolden(t, filepath.Join("testdata", "descriptions.golden.txt"), []byte(b.String()))
}

// Descriptions are a function of the value and the names only: classifying
// the same trace again (what reclassify does) and reading the value back as
// stored gives the same words for every action of every toncenter trace.
func TestDescriptionsStableAcrossReclassify(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	if len(traces) == 0 {
		t.Skip("no traces")
	}
	n := 0
	for _, f := range traces {
		first, again := classifyFile(t, f, nil), classifyFile(t, f, nil)
		if len(first) != len(again) {
			t.Fatalf("%s: %d actions, then %d", f, len(first), len(again))
		}
		for i := range first {
			stored, err := json.Marshal(first[i])
			if err != nil {
				t.Fatal(err)
			}
			var back chain.Action
			if err := json.Unmarshal(stored, &back); err != nil {
				t.Fatal(err)
			}
			list := []*chain.Action{&first[i], &again[i], &back}
			actions.DescribeActions(list, fixtureNames())
			if first[i].Description == "" || again[i].Description != first[i].Description || back.Description != first[i].Description ||
				again[i].ActionID != first[i].ActionID {
				t.Errorf("%s %s: %q, %q, %q", filepath.Base(f), first[i].Type, first[i].Description, again[i].Description, back.Description)
			}
			n++
		}
	}
	t.Logf("%d actions of %d traces", n, len(traces))
}
