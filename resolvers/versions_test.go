package resolvers

import (
	"slices"
	"testing"

	"github.com/tonql/tonql/actions"
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
