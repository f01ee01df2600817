package actions

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/tonql/tonql/chain"
)

// Address is a raw upper-case account address ("0:ABCD...") inside an
// action's value. Every Address field is a participant of the action: the
// account filter finds the action by it, and the address book names it.
// The field's role tag says in what role ("sender", "recipient", ...;
// "other" when absent).
type Address string

// MarshalGQL makes Address the GraphQL scalar of the same name; an empty
// (unknown) address is null, as it is absent from the REST value.
func (a Address) MarshalGQL(w io.Writer) { writeGQLString(w, string(a)) }

// UnmarshalGQL accepts any address form and keeps the raw one.
func (a *Address) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("an address must be a string")
	}
	raw, err := chain.NormalizeAddress(s)
	if err != nil {
		return err
	}
	*a = Address(raw)
	return nil
}

// BigInt is an integer written in decimal in a JSON string: amounts (jetton
// amounts exceed 64 bits), query ids, item indexes. "" means unknown.
type BigInt string

// MarshalGQL makes BigInt the GraphQL scalar of the same name; unknown is null.
func (b BigInt) MarshalGQL(w io.Writer) { writeGQLString(w, string(b)) }

// UnmarshalGQL accepts a decimal string or a number.
func (b *BigInt) UnmarshalGQL(v any) error {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case int64:
		s = strconv.FormatInt(x, 10)
	default:
		return fmt.Errorf("a BigInt must be a decimal string")
	}
	if _, ok := new(big.Int).SetString(s, 10); !ok {
		return fmt.Errorf("%q is not a decimal integer", s)
	}
	*b = BigInt(s)
	return nil
}

// UnmarshalJSON reads a decimal string, or a JSON number (values stored
// before amounts and indexes were all strings).
func (b *BigInt) UnmarshalJSON(data []byte) error {
	// The decoder hands over a value it has already checked: a plain
	// string (every stored amount) is taken as is rather than scanned twice
	// more by a nested Unmarshal (most of what reading a swap's or
	// transfer's value costs).
	if s, ok := chain.PlainJSONString(data); ok {
		*b = BigInt(s)
		return nil
	}
	if len(data) > 0 && data[0] != '"' {
		var n json.Number
		if err := json.Unmarshal(data, &n); err != nil {
			return err
		}
		*b = BigInt(n.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*b = BigInt(s)
	return nil
}

func writeGQLString(w io.Writer, s string) {
	if s == "" {
		_, _ = io.WriteString(w, "null")
		return
	}
	b, _ := json.Marshal(s)
	_, _ = w.Write(b)
}

// addressType is reflect's view of Address, for the walks below.
var addressType = reflect.TypeOf(Address(""))

// addressPlan says where the addresses of a struct type are: its Address
// fields, and the fields that may hold more (structs, pointers, slices).
// Plans are made when types are declared, so finding an action's
// participants costs no tag parsing.
type addressPlan struct {
	fields []plannedField
}

type plannedField struct {
	index int
	role  string // "" inherits the enclosing field's role
	plan  *addressPlan
	kind  reflect.Kind // String (an Address), Struct, Pointer or Slice
}

// planFor makes (or finds in plans) the plan of struct type t.
func planFor(t reflect.Type, plans map[reflect.Type]*addressPlan) *addressPlan {
	if p, ok := plans[t]; ok {
		return p
	}
	p := &addressPlan{}
	plans[t] = p
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		ft, kind := f.Type, f.Type.Kind()
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
			ft = ft.Elem()
		}
		pf := plannedField{index: i, role: f.Tag.Get("role"), kind: kind}
		switch {
		case ft == addressType:
		case ft.Kind() == reflect.Struct:
			pf.plan = planFor(ft, plans)
		default:
			continue
		}
		p.fields = append(p.fields, pf)
	}
	return p
}

// walk calls fn for every non-empty Address reachable from v (of the plan's
// struct type), with its role.
func (p *addressPlan) walk(v reflect.Value, role string, fn func(a, role string)) {
	for _, f := range p.fields {
		r := f.role
		if r == "" {
			r = role
		}
		walkValue(v.Field(f.index), f.plan, r, fn)
	}
}

func walkValue(v reflect.Value, plan *addressPlan, role string, fn func(a, role string)) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			fn(v.String(), role)
		}
	case reflect.Struct:
		plan.walk(v, role, fn)
	case reflect.Pointer:
		if !v.IsNil() {
			walkValue(v.Elem(), plan, role, fn)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkValue(v.Index(i), plan, role, fn)
		}
	}
}

// Participants lists the Address fields of a value with their roles, plus
// the accounts of the action's transactions (role "other" when the value
// does not name them), and the sorted set of addresses in the value. An
// address with a named role is not also listed as "other".
func Participants(value any, txAccounts []string) ([]chain.ActionAccount, []string) {
	v := reflect.ValueOf(value)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var out []chain.ActionAccount
	var addrs []string
	add := func(a, role string) {
		for i, p := range out {
			if p.Address != a {
				continue
			}
			if p.Role == role || role == chain.RoleOther {
				return
			}
			if p.Role == chain.RoleOther { // a named role replaces "other"
				out[i].Role = role
				return
			}
		}
		out = append(out, chain.ActionAccount{Address: a, Role: role})
	}
	if plan, ok := registry.plans[v.Type()]; ok {
		plan.walk(v, chain.RoleOther, func(a, role string) {
			addrs = append(addrs, a)
			add(a, role)
		})
	}
	for _, a := range txAccounts {
		add(a, chain.RoleOther)
	}
	sort.Strings(addrs)
	return out, slices.Compact(addrs)
}

// DecodeValue reads a stored value into its declared struct (a pointer to
// it), for typed access (GraphQL details). An undeclared type is an error.
func DecodeValue(typeName string, raw []byte) (any, error) {
	t, ok := Lookup(typeName)
	if !ok {
		return nil, fmt.Errorf("action type %q is not declared", typeName)
	}
	v := reflect.New(reflect.TypeOf(t.Value))
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, v.Interface()); err != nil {
			return nil, fmt.Errorf("value of %s: %w", typeName, err)
		}
	}
	return v.Interface(), nil
}

// Details is a value struct of any declared type: what GraphQL's
// ActionDetails union binds to (DecodeValue returns a pointer to one).
type Details interface{}

// Text is a string fact of a value (a comment, a name, an op code, a
// payload): "" means unknown, absent from the REST value and null in
// GraphQL, like Address and BigInt.
type Text string

// MarshalGQL writes the text, null when unknown.
func (t Text) MarshalGQL(w io.Writer) { writeGQLString(w, string(t)) }

// UnmarshalGQL accepts a string.
func (t *Text) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a string")
	}
	*t = Text(s)
	return nil
}
