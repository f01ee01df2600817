package resolvers

import (
	"slices"
	"testing"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/store"
)

// The table is toncenter's: every name in it is a shortcut or a type we
// decode (a misspelling would silently select nothing), it has no cycles,
// and the versions nest.
func TestTypeShortcutsTable(t *testing.T) {
	for name, entries := range typeShortcuts {
		for _, e := range entries {
			if _, ok := typeShortcuts[e]; ok {
				continue
			}
			if _, ok := actions.CanonicalType(e); !ok {
				t.Errorf("%s: %q is no type of ours", name, e)
			}
		}
		onPath := map[string]bool{}
		var walk func(string)
		walk = func(s string) {
			if onPath[s] {
				t.Fatalf("cycle through %s", s)
			}
			onPath[s] = true
			for _, e := range typeShortcuts[s] {
				walk(e)
			}
			onPath[s] = false
		}
		walk(name)
	}
	expand := func(names ...string) []string {
		out, err := supportedTypes(names)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	v1, v4, latest := expand("v1"), expand("v4"), expand("latest")
	if len(v1) != 23 || !slices.Contains(v1, "TickTock") || !slices.Contains(v1, "SmartContractExec") {
		t.Errorf("v1 = %v", v1)
	}
	if len(v4) != 23+23+17+12 || slices.Contains(v4, "TgbtcMint") || slices.Contains(v4, "ExtraCurrencyTransfer") {
		t.Errorf("v4 has %d types: %v", len(v4), v4)
	}
	// latest adds only the types toncenter's table does not name.
	if len(latest) != len(v4)+1 || !slices.Contains(latest, "ExtraCurrencyTransfer") {
		t.Errorf("latest - v4 = %v", slices.DeleteFunc(latest, func(s string) bool { return slices.Contains(v4, s) }))
	}
	if got := expand("tgbtc"); len(got) != 23+7 {
		t.Errorf("tgbtc adds %d types to v1", len(got)-23)
	}
	if got := expand("jetton_burn,JettonSwap", "NativeTransfer"); len(got) != 23 {
		t.Errorf("names of v1 types add nothing: %v", got)
	}
	for _, bad := range []string{"v5", "", "Latest", "nft.v4"} {
		if _, err := supportedTypes([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// supported_action_types' nested rule: none given, or every type that can
// have steps, is the zero rule (every nested action hidden); otherwise
// the supported types less v1's hide the steps under them.
func TestNestedRule(t *testing.T) {
	rule := func(names ...string) store.NestedRule {
		types, err := supportedTypes(names)
		if err != nil {
			t.Fatal(err)
		}
		return nestedRule(types)
	}
	if r := rule(); r.Show {
		t.Errorf("no supported types: %+v", r)
	}
	// latest leaves tgbtc's types out: their steps are shown to it.
	if r := rule("latest"); !r.Show || slices.Contains(r.HiddenUnder, "TgbtcMint") || !slices.Contains(r.HiddenUnder, "NftPurchase") {
		t.Errorf("latest: %+v", r)
	}
	if r := rule("latest", "tgbtc"); r.Show {
		t.Errorf("every type: %+v", r)
	}
	if r := rule("v1"); !r.Show || len(r.HiddenUnder) != 0 {
		t.Errorf("v1: %+v", r)
	}
	if r := rule("v1", "nft_purchase", "jetton_transfer"); !r.Show || !slices.Equal(r.HiddenUnder, []string{"NftPurchase"}) {
		t.Errorf("v1 and a purchase: %+v", r)
	}
	if r := rule("v4"); !r.Show || slices.Contains(r.HiddenUnder, "TonTransfer") || !slices.Contains(r.HiddenUnder, "DnsPurchase") ||
		len(r.HiddenUnder) != len(rule("latest").HiddenUnder)-len(unversioned) {
		t.Errorf("v4: %+v", r)
	}
}
