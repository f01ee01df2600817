package actions

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"
)

// Type declares one action type. The value struct is the declaration: its
// Go name is the type name (the `type` of /api/v3/actions and the GraphQL
// object), its json tags are the fields of `value`, its doc tags their
// documentation. cmd/actionsgen writes the GraphQL types and the table of
// docs/ACTIONS.md from these declarations.
type Type struct {
	// Value is the zero value of the value struct (not a pointer).
	Value any
	// Toncenter is toncenter's snake_case name of the type, "" when toncenter
	// has no such type; its details fields map to ours by the tc tags.
	Toncenter string
	// Protocols names the contracts and protocols that produce the type.
	Protocols string
	// Doc says what happened, in one sentence.
	Doc string
	// Failed says when the action is failed.
	Failed string
	// Differs says where and why we differ from toncenter, "" when we don't.
	Differs string
	// Aliases are further accepted spellings in filters.
	Aliases []string
	// Title is the short title every action of the type carries ("Jetton
	// transfer").
	Title string
	// Describe is the type's template: the one sentence an action of the
	// type carries (describe.go; bind it with describeAs).
	Describe describer
}

// Name is the type name: the value struct's Go name.
func (t Type) Name() string { return reflect.TypeOf(t.Value).Name() }

// matcherEntry is a matcher with its place in the order.
type matcherEntry struct {
	order int
	name  string
	fn    matcher
}

// Matcher orders. Lower runs first; each matcher visits the whole trace
// before the next runs, so a pattern that contains others (a swap contains
// jetton transfers) must come before them.
const (
	// OrderProtocol is for protocol flows built of transfers: swaps,
	// liquidity, staking, lending, bridges, marketplaces.
	OrderProtocol = 100
	// OrderToken is for single token moves: jetton and NFT transfers,
	// mints and burns.
	OrderToken = 500
	// OrderFallback is for what explains any message: TON transfers and
	// contract calls.
	OrderFallback = 900
)

// registry holds the declarations. Protocol files fill it from their init
// functions; after package initialization it is only read.
var registry = struct {
	types    map[string]*Type
	byValue  map[reflect.Type]*Type
	names    map[string]string // accepted spelling -> type name
	matchers []matcherEntry
	plans    map[reflect.Type]*addressPlan // where each value type's addresses are
}{
	types:   map[string]*Type{},
	byValue: map[reflect.Type]*Type{},
	names:   map[string]string{},
	plans:   map[reflect.Type]*addressPlan{},
}

// declare adds action types. A declaration error is a programming error,
// caught by any test of the package.
func declare(types ...Type) {
	for i := range types {
		t := types[i]
		rt := reflect.TypeOf(t.Value)
		if rt == nil || rt.Kind() != reflect.Struct {
			panic(fmt.Sprintf("actions: %T: a value must be a struct", t.Value))
		}
		name := t.Name()
		if _, dup := registry.types[name]; dup {
			panic("actions: type declared twice: " + name)
		}
		registry.types[name] = &t
		registry.byValue[rt] = &t
		planFor(rt, registry.plans)
		for _, alias := range append([]string{name, t.Toncenter, snakeCase(name)}, t.Aliases...) {
			if alias == "" {
				continue
			}
			if other, taken := registry.names[alias]; taken && other != name {
				panic(fmt.Sprintf("actions: name %q of %s is taken by %s", alias, name, other))
			}
			registry.names[alias] = name
		}
	}
}

// addMatcher adds a matcher at its order; name is for the docs (the order
// table) and for ties, which run in name order.
func addMatcher(order int, name string, fn matcher) {
	registry.matchers = append(registry.matchers, matcherEntry{order: order, name: name, fn: fn})
	sort.SliceStable(registry.matchers, func(i, j int) bool {
		a, b := registry.matchers[i], registry.matchers[j]
		if a.order != b.order {
			return a.order < b.order
		}
		return a.name < b.name
	})
}

// Types lists every declared type, sorted by name.
func Types() []Type {
	out := make([]Type, 0, len(registry.types))
	for _, t := range registry.types {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Lookup finds a type by its name.
func Lookup(name string) (Type, bool) {
	t, ok := registry.types[name]
	if !ok {
		return Type{}, false
	}
	return *t, true
}

// CanonicalType resolves any accepted spelling of a type (our name,
// toncenter's snake_case name, an alias) to the type name.
func CanonicalType(name string) (string, bool) {
	n, ok := registry.names[name]
	return n, ok
}

// TypeNames is the sorted list of type names, for error messages.
func TypeNames() []string {
	out := make([]string, 0, len(registry.types))
	for n := range registry.types {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// MatcherOrder lists the matchers as they run: "order name".
func MatcherOrder() []string {
	out := make([]string, len(registry.matchers))
	for i, m := range registry.matchers {
		out[i] = fmt.Sprintf("%d %s", m.order, m.name)
	}
	return out
}

// typeOf names the type of a value struct (or a pointer to one).
func typeOf(v any) (*Type, bool) {
	rt := reflect.TypeOf(v)
	if rt != nil && rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	t, ok := registry.byValue[rt]
	return t, ok
}

// snakeCase turns a type name into toncenter's spelling: JettonSwap ->
// jetton_swap, DexDepositLiquidity -> dex_deposit_liquidity.
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
