package actions

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"reflect"
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

// walkAddresses calls fn for every non-empty Address in v (a value struct,
// a pointer to one, or anything nested in one), with the field's role.
func walkAddresses(v reflect.Value, role string, fn func(a, role string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkAddresses(v.Elem(), role, fn)
		}
	case reflect.String:
		if v.Type() == addressType && v.Len() > 0 {
			fn(v.String(), role)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkAddresses(v.Index(i), role, fn)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			r := f.Tag.Get("role")
			if r == "" {
				r = role
			}
			walkAddresses(v.Field(i), r, fn)
		}
	}
}

// Participants lists the Address fields of a value with their roles, plus
// the accounts of the action's transactions (role "other" when the value
// does not name them), and the sorted set of addresses in the value.
func Participants(value any, txAccounts []string) ([]chain.ActionAccount, []string) {
	var out []chain.ActionAccount
	seen := map[chain.ActionAccount]bool{}
	inValue := map[string]bool{}
	add := func(a, role string) {
		k := chain.ActionAccount{Address: a, Role: role}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	walkAddresses(reflect.ValueOf(value), chain.RoleOther, func(a, role string) {
		inValue[a] = true
		add(a, role)
	})
	for _, a := range txAccounts {
		if _, named := inValue[a]; !named {
			inValue[a] = false
			add(a, chain.RoleOther)
		}
	}
	// "other" only for an address that has no named role.
	named := map[string]bool{}
	for _, p := range out {
		if p.Role != chain.RoleOther {
			named[p.Address] = true
		}
	}
	kept := out[:0]
	for _, p := range out {
		if p.Role != chain.RoleOther || !named[p.Address] {
			kept = append(kept, p)
		}
	}
	out = kept
	addrs := make([]string, 0, len(inValue))
	for a, named := range inValue {
		if named {
			addrs = append(addrs, a)
		}
	}
	sort.Strings(addrs)
	return out, addrs
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
