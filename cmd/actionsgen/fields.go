package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/tonql/tonql/actions"
)

// field is one field of a value struct as the outputs describe it.
type field struct {
	Name      string // the JSON (and GraphQL) name
	GraphQL   string // its GraphQL type
	Kind      string // how the docs name its type
	Doc       string
	Toncenter string // the toncenter details field it carries, "" when none
	Role      string // for addresses: the participant role
}

var (
	addressType = reflect.TypeOf(actions.Address(""))
	bigIntType  = reflect.TypeOf(actions.BigInt(""))
	textType    = reflect.TypeOf(actions.Text(""))
)

// fieldsOf lists the exported, JSON-visible fields of a struct type, and
// calls nested for every struct type a field refers to.
func fieldsOf(t reflect.Type, nested func(reflect.Type)) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		gql, kind := graphQLType(f.Type, nested)
		out = append(out, field{Name: name, GraphQL: gql, Kind: kind, Doc: f.Tag.Get("doc"),
			Toncenter: f.Tag.Get("tc"), Role: f.Tag.Get("role")})
	}
	return out
}

// graphQLType maps a Go field type to its GraphQL type (nullable: absent
// means unknown) and to the words the docs use for it.
func graphQLType(t reflect.Type, nested func(reflect.Type)) (string, string) {
	switch {
	case t == addressType:
		return "Address", "address"
	case t == bigIntType:
		return "BigInt", "decimal string"
	case t == textType:
		return "String", "string"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return graphQLType(t.Elem(), nested)
	case reflect.String:
		// A plain string field would show "" for unknown in GraphQL.
		panic(fmt.Sprintf("actionsgen: field type %s: use actions.Text (or Address, BigInt) for a string fact", t))
	case reflect.Bool:
		return "Boolean", "bool"
	case reflect.Int32, reflect.Int64, reflect.Int:
		return "Int", "integer"
	case reflect.Uint32:
		return "UInt32", "integer"
	case reflect.Uint64:
		return "UInt64", "integer"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String && t.Elem().Name() == "string" {
			return "[String!]", "list of string"
		}
		g, k := graphQLType(t.Elem(), nested)
		return "[" + g + "!]", "list of " + k
	case reflect.Struct:
		nested(t)
		return t.Name(), "object " + t.Name()
	}
	panic(fmt.Sprintf("actionsgen: field type %s has no GraphQL mapping; see cmd/actionsgen/fields.go", t))
}
