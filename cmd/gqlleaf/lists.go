package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// Lists of leaf objects. gqlgen marshals each element of a list of objects
// on its own: the selection's fields collected again, a field set made, a
// field context and a context for the element, a map of the fields written:
// about 14 allocations per element before any field is read. When every
// field selected on the elements is a direct leaf (a value handed over as a
// pointer into the element, see leafEdits), nothing can fail and nothing
// waits, so the whole list is one value: the fields collected once, one
// slice of the elements' leaves, written as gqlgen writes them
// (leafObjects, in the companion file). Anything else (a resolver field,
// @defer, a nil element, a nil value of a non-null field) takes gqlgen's
// path, unchanged.

// directLeaf is how a rewritten field function hands its value over:
// return leafX{&obj.F}, or return &obj.F after a nil check.
var directLeaf = regexp.MustCompile(`(?s)^\{\s*(?:res := obj\.\w+\s*if any\(res\) == nil \{.*\}\s*return (leaf\w+\{&obj\.\w+\}|&obj\.\w+)|if obj\.(\w+) == nil \{.*\}\s*return (&obj\.\w+)|return (&obj\.\w+))\s*\}$`)

// leafCase is one field of an object that a list of leaf objects can write.
type leafCase struct {
	name    string // the GraphQL field
	expr    string // the value: leafString{&obj.ActionID}, &obj.Value
	nilable string // a Go field that must not be nil ("" when none)
}

// leafFields are, per object type, its direct leaf fields, read from the
// rewritten field functions _Object_field.
func leafFields(file *ast.File, src []byte, fset *token.FileSet) map[string][]leafCase {
	out := map[string][]leafCase{}
	for _, m := range methods(file, src, fset, "_") {
		if strings.HasPrefix(m.name, "__") {
			continue // introspection
		}
		object, field, ok := strings.Cut(m.name[1:], "_")
		if !ok {
			continue
		}
		g := directLeaf.FindStringSubmatch(m.body)
		switch {
		case g == nil:
			continue
		case g[1] != "":
			out[object] = append(out[object], leafCase{name: field, expr: g[1]})
		case g[3] != "":
			out[object] = append(out[object], leafCase{name: field, expr: g[3], nilable: g[2]})
		default:
			out[object] = append(out[object], leafCase{name: field, expr: g[4]})
		}
	}
	return out
}

// listHook is what a list marshaler of objects asks first.
const listHook = "if m, ok := ec.leafList_%s(ctx, sel, v); ok {\nreturn m\n}\n"

// elementObject finds the object an element marshaler marshals:
// return ec._Object(ctx, sel, v).
var elementObject = regexp.MustCompile(`return ec\._(\w+)\(ctx, sel, v\)\s*\}$`)

// leafListEdits adds, to each list marshaler of pointers to objects that have
// direct leaves, the call of that object's leafList function, and writes
// the functions at the end of the file. Run on rewritten source; source
// that has them already comes back unchanged.
func leafListEdits(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "generated.go", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	leaves := leafFields(file, src, fset)
	bodies := map[string]string{}
	for _, m := range methods(file, src, fset, "marshal") {
		bodies[m.name] = m.body
	}
	// Marshalers' names hold non-ASCII letters (gqlgen's ᚖ for a pointer).
	call := regexp.MustCompile(`ret\[i\] = ec\.(marshal[^(\s]+)\(ctx, sel, v\[i\]\)`)
	var edits []edit
	made := map[string]string{} // object -> element type
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "marshal") {
			continue
		}
		from := fset.Position(fn.Body.Pos()).Offset
		body := string(src[from:fset.Position(fn.Body.End()).Offset])
		if !strings.Contains(body, "go f(i)") || strings.Contains(body, "ec.leafList_") {
			continue
		}
		params := fn.Type.Params.List
		arr, ok := params[len(params)-1].Type.(*ast.ArrayType)
		if !ok || arr.Len != nil {
			continue
		}
		star, ok := arr.Elt.(*ast.StarExpr)
		if !ok {
			continue
		}
		c := call.FindStringSubmatch(body)
		if c == nil {
			continue
		}
		o := elementObject.FindStringSubmatch(bodies[c[1]])
		if o == nil || len(leaves[o[1]]) == 0 {
			continue
		}
		object, elem := o[1], exprText(star.X, src, fset)
		if prev, ok := made[object]; ok && prev != elem {
			continue // one object bound to two Go types: not written here
		}
		made[object] = elem
		edits = append(edits, edit{from + 1, from + 1, "\n" + fmt.Sprintf(listHook, object)})
	}
	if len(edits) == 0 {
		return src, nil
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.from], append([]byte(e.text), out[e.to:]...)...)
	}
	objects := make([]string, 0, len(made))
	for o := range made {
		objects = append(objects, o)
	}
	sort.Strings(objects)
	for _, o := range objects {
		out = append(out, leafListFunc(o, made[o], leaves[o])...)
	}
	return out, nil
}

// leafListFunc is the function that marshals a list of object's elements
// as one value when their selection is all direct leaves.
func leafListFunc(object, elem string, cases []leafCase) string {
	var b strings.Builder
	impl := strings.ToLower(object[:1]) + object[1:] + "Implementors"
	fmt.Fprintf(&b, `
// leafList_%[1]s marshals a list of %[1]s whose selection is all direct
// leaves as one value (cmd/gqlleaf); false sends the list gqlgen's way.
func (ec *executionContext) leafList_%[1]s(ctx context.Context, sel ast.SelectionSet, v []*%[2]s) (graphql.Marshaler, bool) {
	if v == nil {
		return nil, false
	}
	fields := graphql.CollectFields(ec.OperationContext, sel, %[3]s)
	for _, f := range fields {
		if f.Deferrable != nil || !leafObjectFields[%[1]q][f.Name] {
			return nil, false
		}
	}
	vals := make([]graphql.Marshaler, 0, len(v)*len(fields))
	for _, obj := range v {
		if obj == nil {
			return nil, false
		}
		for _, f := range fields {
			switch f.Name {
			case "__typename":
				vals = append(vals, leafTypename_%[1]s)
`, object, elem, impl)
	for _, c := range cases {
		fmt.Fprintf(&b, "\t\t\tcase %q:\n", c.name)
		if c.nilable != "" {
			fmt.Fprintf(&b, "\t\t\t\tif obj.%s == nil {\n\t\t\t\t\treturn nil, false\n\t\t\t\t}\n", c.nilable)
		}
		fmt.Fprintf(&b, "\t\t\t\tvals = append(vals, %s)\n", c.expr)
	}
	fmt.Fprintf(&b, `			}
		}
	}
	return leafObjects{fields: fields, vals: vals, n: len(v)}, true
}

var leafTypename_%[1]s = graphql.MarshalString(%[1]q)
`, object)
	return b.String()
}
