package actions_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// floors are, per type, how many labelled actions of the toncenter cases
// are detected (type, status and amounts) and found in full detail (also
// every address the label names): the figures reached so far. A family
// that falls below them fails the test; raise them as matchers improve.
// The scoring is the one ../shared/tools/score_classify.py applies, so the
// same check runs on labelled traces we do not have. Each protocol's test
// file sets the floors of its types with setFloor from an init function.
var floors = map[string]struct{ detected, full int }{}

func setFloor(typ string, detected, full int) {
	if _, dup := floors[typ]; dup {
		panic("floor set twice: " + typ)
	}
	floors[typ] = struct{ detected, full int }{detected, full}
}

func init() {
	setFloor("TonTransfer", 1, 1)
	setFloor("JettonTransfer", 2, 2)
	setFloor("NftItemTransfer", 4, 4)
	setFloor("NftPurchase", 1, 1)
	setFloor("SmartContractExec", 2, 2)
	setFloor("JettonMint", 3, 3)
}

// labelledCase is one case of toncenter's cases files: a trace and the
// actions it is labelled with.
type labelledCase struct {
	TraceID  string `yaml:"trace-id"`
	Expected []struct {
		Type   string    `yaml:"type"`
		Values yaml.Node `yaml:"values"`
	} `yaml:"expected-actions"`
}

// forEachCase calls fn on every labelled case, file by file and by name,
// with the path of its trace; it returns how many cases files there are.
func forEachCase(t *testing.T, fn func(file, name, trace string, cs labelledCase)) int {
	t.Helper()
	dir := filepath.Join(testenv.FixturesDir(t), "toncenter-traces")
	files, _ := filepath.Glob(filepath.Join(dir, "cases", "*.yaml"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf struct {
			Cases map[string]labelledCase `yaml:"cases"`
		}
		if err := yaml.Unmarshal(raw, &cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, name := range slices.Sorted(maps.Keys(cf.Cases)) {
			cs := cf.Cases[name]
			fn(f, name, traceFile(filepath.Join(dir, "traces"), cs.TraceID), cs)
		}
	}
	return len(files)
}

// labelled is one expected action of a case.
type labelled struct {
	caseName, typ string
	status        string   // "ok", "failed" or "" (not labelled)
	amounts       []string // the labelled value/amount, decimal
	addresses     []string // every raw address the label names, upper-case
}

var rawAddressRE = regexp.MustCompile(`-?\d+:[0-9A-Fa-f]{64}`)

// labelAddresses collects the addresses of a label, except in the fields
// that list transactions or name the action.
func labelAddresses(v any, out map[string]bool) {
	switch x := v.(type) {
	case string:
		for _, a := range rawAddressRE.FindAllString(x, -1) {
			out[strings.ToUpper(a)] = true
		}
	case map[string]any:
		for k, e := range x {
			if k != "tx_hashes" && k != "action_id" {
				labelAddresses(e, out)
			}
		}
	case []any:
		for _, e := range x {
			labelAddresses(e, out)
		}
	}
}

func TestToncenterCases(t *testing.T) {
	detected, full, total := map[string]int{}, map[string]int{}, map[string]int{}
	files := forEachCase(t, func(f, name, trace string, cs labelledCase) {
		got := classifiedJSON(t, trace)
		usedD, usedF := map[int]bool{}, map[int]bool{}
		for _, exp := range cs.Expected {
			typ, ok := actions.CanonicalType(exp.Type)
			if !ok {
				continue
			}
			values, _ := fromYAML(&exp.Values).(map[string]any)
			l := newLabelled(name, typ, values)
			total[typ]++
			if i := l.find(got, usedD, false); i >= 0 {
				usedD[i] = true
				detected[typ]++
			}
			if i := l.find(got, usedF, true); i >= 0 {
				usedF[i] = true
				full[typ]++
			} else {
				t.Logf("miss %s | %s | %s status=%s | lacking: %s", filepath.Base(f), name, typ, l.status, l.lacking(got))
			}
		}
	})
	if files == 0 {
		t.Skip("no cases")
	}
	types := make([]string, 0, len(total))
	for k := range total {
		types = append(types, k)
	}
	sort.Strings(types)
	var sumD, sumF, sumT int
	for _, k := range types {
		sumD, sumF, sumT = sumD+detected[k], sumF+full[k], sumT+total[k]
		t.Logf("%-28s detected %2d/%-2d full detail %2d/%-2d", k, detected[k], total[k], full[k], total[k])
		if fl := floors[k]; detected[k] < fl.detected || full[k] < fl.full {
			t.Errorf("%s fell to detected %d, full detail %d (floor %d, %d)", k, detected[k], full[k], fl.detected, fl.full)
		}
	}
	t.Logf("all declared types: detected %d/%d, full detail %d/%d", sumD, sumT, sumF, sumT)
}

func newLabelled(caseName, typ string, values map[string]any) labelled {
	l := labelled{caseName: caseName, typ: typ}
	if s, ok := values["success"].(bool); ok {
		l.status = map[bool]string{true: chain.StatusOK, false: chain.StatusFailed}[s]
	}
	for _, k := range []string{"value", "amount"} {
		if n, ok := values[k].(intLiteral); ok {
			l.amounts = append(l.amounts, string(n))
		}
	}
	set := map[string]bool{}
	labelAddresses(values, set)
	for a := range set {
		l.addresses = append(l.addresses, a)
	}
	sort.Strings(l.addresses)
	return l
}

// intLiteral and fromYAML read the labels keeping integers as written.
type intLiteral = testenv.IntLiteral

var fromYAML = testenv.YAMLValue

// find returns the first unused action of the type with the labelled
// status and amounts (and, for full detail, every labelled address).
func (l labelled) find(got []classified, used map[int]bool, fullDetail bool) int {
	for i, a := range got {
		if used[i] || a.typ != l.typ || l.status != "" && a.status != l.status {
			continue
		}
		if !containsAll(a.json, l.amounts) {
			continue
		}
		if fullDetail && !containsAll(strings.ToUpper(a.json), l.addresses) {
			continue
		}
		return i
	}
	return -1
}

// lacking names what no action of the type carries, for the miss log.
func (l labelled) lacking(got []classified) string {
	var cands []classified
	for _, a := range got {
		if a.typ == l.typ {
			cands = append(cands, a)
		}
	}
	if len(cands) == 0 {
		return "no action of this type"
	}
	var out []string
	for _, n := range append(append([]string{}, l.amounts...), l.addresses...) {
		missing := true
		for _, a := range cands {
			if strings.Contains(strings.ToUpper(a.json), n) {
				missing = false
			}
		}
		if missing {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "status, or the facts are spread over several actions"
	}
	return strings.Join(out, ", ")
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// classified is one action as `tonql classify` prints it (accounts
// included), with its JSON.
type classified struct {
	typ, status, json string
}

func classifiedJSON(t testing.TB, path string) []classified {
	var out []classified
	for _, a := range classifyFile(t, path, nil) {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, classified{typ: a.Type, status: a.Status, json: string(b)})
	}
	return out
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
