package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// leafMarker is what gqlgen's field context of a scalar or enum field says
// when asked for a child: such a field has no selections of its own.
const leafMarker = "does not have child fields"

// edit replaces src[from:to] with text.
type edit struct {
	from, to int
	text     string
}

// rewrite turns the field functions of gqlgen's generated code that read a
// scalar or enum straight from a struct field into direct reads (see
// main.go for why and what stays). It returns the new source and how many
// functions it changed; source already rewritten comes back unchanged.
func rewrite(src []byte) ([]byte, int, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "generated.go", src, parser.ParseComments)
	if err != nil {
		return nil, 0, err
	}
	leaf := leafContexts(file, src, fset)
	safe := quietMarshalers(file, src, fset)
	direct := directMarshalers(file, src, fset)
	var edits []edit
	n := 0
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "_") {
			continue
		}
		if !leaf["fieldContext"+fn.Name.Name] {
			continue
		}
		e, ok := leafEdits(fn, src, fset, safe, direct)
		if !ok {
			continue
		}
		edits = append(edits, e...)
		n++
	}
	edits = append(edits, listEdits(file, src, fset)...)
	buffer, err := bufferEdit(src)
	if err != nil {
		return nil, 0, err
	}
	edits = append(edits, buffer...)
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.from], append([]byte(e.text), out[e.to:]...)...)
	}
	formatted, err := format.Source(out)
	if err != nil {
		return nil, 0, fmt.Errorf("rewritten source does not format: %w", err)
	}
	withLists, err := leafListEdits(formatted)
	if err != nil {
		return nil, 0, err
	}
	if formatted, err = format.Source(withLists); err != nil {
		return nil, 0, fmt.Errorf("list functions do not format: %w", err)
	}
	return formatted, n, nil
}

// method is a method of the executor with its body's text and where the
// body starts in the source.
type method struct {
	name, body string
	from       int
}

// methods are the executor's methods whose names start with prefix.
func methods(file *ast.File, src []byte, fset *token.FileSet, prefix string) []method {
	var out []method
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if ok && fn.Recv != nil && fn.Body != nil && strings.HasPrefix(fn.Name.Name, prefix) {
			from := fset.Position(fn.Body.Pos()).Offset
			out = append(out, method{fn.Name.Name, string(src[from:fset.Position(fn.Body.End()).Offset]), from})
		}
	}
	return out
}

// leafContexts names the fieldContext_* functions of leaf fields that no
// resolver computes.
func leafContexts(file *ast.File, src []byte, fset *token.FileSet) map[string]bool {
	out := map[string]bool{}
	for _, m := range methods(file, src, fset, "fieldContext_") {
		if strings.Contains(m.body, leafMarker) && !computed(m.body) {
			out[m.name] = true
		}
	}
	return out
}

// computed tells whether a field context's field is a resolver's or a
// method's.
func computed(fieldContext string) bool {
	return strings.Contains(fieldContext, "IsResolver: true") || strings.Contains(fieldContext, "IsMethod:   true")
}

// leafEdits finds, in one field function, the resolver-middleware call
// whose closure only returns obj.<Field>, nil, and the lines that unbox its
// result; ok is false unless the function has exactly gqlgen's shape.
func leafEdits(fn *ast.FuncDecl, src []byte, fset *token.FileSet, quiet map[string]bool, direct map[string]string) ([]edit, bool) {
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	var field string
	var call, unbox, result ast.Stmt
	var nilCheck *ast.BinaryExpr
	for _, st := range fn.Body.List {
		switch s := st.(type) {
		case *ast.AssignStmt:
			if f, ok := middlewareRead(s); ok {
				field, call = f, s
				continue
			}
			if isUnbox(s) {
				unbox = s
				continue
			}
			if len(s.Lhs) == 1 && exprText(s.Lhs[0], src, fset) == "fc.Result" {
				result = s
			}
		case *ast.IfStmt:
			if be, ok := s.Cond.(*ast.BinaryExpr); ok && exprText(be, src, fset) == "resTmp == nil" {
				nilCheck = be
			}
		}
	}
	if field == "" || unbox == nil || result == nil || nilCheck == nil {
		return nil, false
	}
	// The statement after the call is gqlgen's "if err != nil" on the
	// middleware's error, which a struct read cannot return.
	var errCheck ast.Stmt
	for i, st := range fn.Body.List {
		if st == call && i+1 < len(fn.Body.List) {
			errCheck = fn.Body.List[i+1]
		}
	}
	ifErr, ok := errCheck.(*ast.IfStmt)
	if !ok || exprText(ifErr.Cond, src, fset) != "err != nil" {
		return nil, false
	}
	last, ok := fn.Body.List[len(fn.Body.List)-1].(*ast.ReturnStmt)
	if !ok || len(last.Results) != 1 {
		return nil, false
	}
	m, isCall := marshalCall(last.Results[0])
	how, isDirect := direct[m]
	isDirect = isDirect && passesRes(last.Results[0])
	if isCall && isDirect && how == nilThenPointer {
		// A nilable scalar that marshals itself: the marshaler is called
		// (with the field context its error path reads) only for nil.
		return []edit{{off(fn.Body.Pos()), off(fn.Body.End()), fmt.Sprintf(`{
	if obj.%s == nil {
		fc, err := ec.fieldContext%s(ctx, field)
		if err != nil {
			return graphql.Null
		}
		ctx = graphql.WithFieldContext(ctx, fc)
		return ec.%s(ctx, field.Selections, obj.%s)
	}
	return &obj.%s
}`, field, fn.Name.Name, m, field, field)}}, true
	}
	if isCall && quiet[m] {
		ret := exprText(last, src, fset)
		if isDirect {
			ret = fmt.Sprintf("return %s", strings.ReplaceAll(how, "FIELD", "&obj."+field))
		}
		// The marshaler never reports an error, so the field context
		// (there for error paths) is made only in the null branch, which
		// only an interface holding nil reaches; and a read of a field of
		// obj, never nil here, cannot panic.
		nullBody := exprText(nilCheckStmt(fn, nilCheck).Body, src, fset)
		body := fmt.Sprintf(`{
	res := obj.%s
	if any(res) == nil {
		fc, err := ec.fieldContext%s(ctx, field)
		if err != nil {
			return graphql.Null
		}
		ctx = graphql.WithFieldContext(ctx, fc)
		%s
	}
	%s
}`, field, fn.Name.Name, strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(nullBody, "{"), "}")), ret)
		return []edit{{off(fn.Body.Pos()), off(fn.Body.End()), body}}, true
	}
	return []edit{
		{off(call.Pos()), off(ifErr.End()), "res := obj." + field},
		// any(res) == nil is what resTmp == nil tested: false for every
		// type but an interface holding nil, and free to compute.
		{off(nilCheck.Pos()), off(nilCheck.End()), "any(res) == nil"},
		wholeLine(src, off(unbox.Pos()), off(unbox.End())),
		wholeLine(src, off(result.Pos()), off(result.End())),
	}, true
}

// wholeLine is the edit that deletes the statement at src[from:to] with its
// indentation and line break.
func wholeLine(src []byte, from, to int) edit {
	for from > 0 && src[from-1] == '\t' {
		from--
	}
	if to < len(src) && src[to] == '\n' {
		to++
	}
	return edit{from, to, ""}
}

// nilCheckStmt is the if statement whose condition is cond.
func nilCheckStmt(fn *ast.FuncDecl, cond ast.Expr) *ast.IfStmt {
	for _, st := range fn.Body.List {
		if s, ok := st.(*ast.IfStmt); ok && s.Cond == cond {
			return s
		}
	}
	return nil
}

// marshalCall names the ec.marshal* function that e calls.
func marshalCall(e ast.Expr) (string, bool) {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || ident(sel.X) != "ec" || !strings.HasPrefix(sel.Sel.Name, "marshal") {
		return "", false
	}
	return sel.Sel.Name, true
}

// passesRes tells whether the marshal call's value argument is res itself
// (not a conversion): then &obj.<Field> has the pointer type a direct
// marshaler takes.
func passesRes(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	return ok && len(c.Args) == 3 && ident(c.Args[2]) == "res"
}

// nilThenPointer marks, in directMarshalers, a nilable custom scalar.
const nilThenPointer = "nil, then &FIELD"

var (
	// builtinMarshal is gqlgen's marshaler of a built-in scalar that
	// cannot be null, once neverNull has cut its dead branch.
	builtinMarshal = regexp.MustCompile(`^\{\s*_ = sel\s*res := graphql\.Marshal(String|Boolean|Int|Int32|Int64|Uint|Uint32|Uint64)\(v\)\s*return res\s*\}$`)
	// selfMarshal is a custom scalar that marshals itself; nilSelfMarshal
	// the same for a nilable one (a slice or map), which is null when nil.
	selfMarshal    = regexp.MustCompile(`^\{\s*return v\s*\}$`)
	nilSelfMarshal = regexp.MustCompile(`^\{\s*if v == nil \{[^{}]*(\{[^{}]*\}[^{}]*)?return graphql\.Null\s*\}\s*return v\s*\}$`)
)

// directMarshalers are the marshal functions whose value a field read
// from a struct can hand over as a pointer into the struct instead:
// converting a value to the graphql.Marshaler interface allocates, a
// pointer (or a struct of one pointer) does not. A built-in scalar maps
// to its leaf type (leafString{&obj.F}, written by companion); a custom
// scalar whose MarshalGQL has a value receiver to &obj.F (its pointer has
// the method too); nilThenPointer when the scalar can be nil. Parameters
// of pointer type are left alone (&obj.F would be a pointer to a pointer).
func directMarshalers(file *ast.File, src []byte, fset *token.FileSet) map[string]string {
	out := map[string]string{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "marshal") {
			continue
		}
		params := fn.Type.Params.List
		if len(params) != 3 {
			continue
		}
		if _, ptr := params[2].Type.(*ast.StarExpr); ptr {
			continue
		}
		body := neverNull.ReplaceAllString(exprText(fn.Body, src, fset), "res := graphql.$1(v)")
		switch m := builtinMarshal.FindStringSubmatch(body); {
		case m != nil:
			out[fn.Name.Name] = "leaf" + m[1] + "{FIELD}"
		case selfMarshal.MatchString(body):
			out[fn.Name.Name] = "FIELD"
		case nilSelfMarshal.MatchString(body):
			out[fn.Name.Name] = nilThenPointer
		}
	}
	return out
}

// neverNull are gqlgen's marshalers of built-in scalars that never return
// graphql.Null, so the "requested element is null" branch gqlgen writes
// after them is dead.
var neverNull = regexp.MustCompile(`res := graphql\.(MarshalString|MarshalBoolean|MarshalInt|MarshalInt32|MarshalInt64|MarshalUint|MarshalUint32|MarshalUint64)\(\*?v\)\s*if res == graphql\.Null \{\s*if !graphql\.HasFieldError\(ctx, graphql\.GetFieldContext\(ctx\)\) \{\s*ec\.Errorf\(ctx, "the requested element is null which the schema does not allow"\)\s*\}\s*\}`)

// quietMarshalers are the marshal functions that can report no error (so
// need no field context): they do not read ctx, other than through
// marshalers that are quiet too, once the dead branches are set aside.
func quietMarshalers(file *ast.File, src []byte, fset *token.FileSet) map[string]bool {
	bodies := map[string]string{}
	for _, m := range methods(file, src, fset, "marshal") {
		bodies[m.name] = neverNull.ReplaceAllString(m.body, "res := graphql.$1(v)")
	}
	calls := regexp.MustCompile(`ec\.(marshal\w+)\(ctx, sel, `)
	memo := map[string]int{} // 1 quiet, 2 not, 3 being decided
	var quiet func(name string) bool
	quiet = func(name string) bool {
		switch memo[name] {
		case 1:
			return true
		case 2, 3:
			return false
		}
		memo[name] = 3
		body, ok := bodies[name]
		rest := calls.ReplaceAllString(body, "")
		ok = ok && !strings.Contains(strings.ReplaceAll(rest, "_ = ctx", ""), "ctx") && !strings.Contains(rest, "ec.")
		for _, m := range calls.FindAllStringSubmatch(body, -1) {
			ok = ok && quiet(m[1])
		}
		memo[name] = 2
		if ok {
			memo[name] = 1
		}
		return ok
	}
	out := map[string]bool{}
	for name := range bodies {
		out[name] = quiet(name)
	}
	return out
}

// middlewareRead matches
//
//	resTmp, err := ec.ResolverMiddleware(ctx, func(rctx context.Context) (any, error) {
//		ctx = rctx // use context from middleware stack in children
//		return obj.Field, nil
//	})
//
// and returns Field (a plain field of obj, not a path through pointers).
func middlewareRead(s *ast.AssignStmt) (string, bool) {
	if len(s.Lhs) != 2 || len(s.Rhs) != 1 || ident(s.Lhs[0]) != "resTmp" {
		return "", false
	}
	c, ok := s.Rhs[0].(*ast.CallExpr)
	if !ok || len(c.Args) != 2 {
		return "", false
	}
	if sel, ok := c.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "ResolverMiddleware" {
		return "", false
	}
	lit, ok := c.Args[1].(*ast.FuncLit)
	if !ok || len(lit.Body.List) != 2 {
		return "", false
	}
	ret, ok := lit.Body.List[1].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 2 || ident(ret.Results[1]) != "nil" {
		return "", false
	}
	sel, ok := ret.Results[0].(*ast.SelectorExpr)
	if !ok || ident(sel.X) != "obj" {
		return "", false
	}
	return sel.Sel.Name, true
}

// isUnbox matches res := resTmp.(T).
func isUnbox(s *ast.AssignStmt) bool {
	if len(s.Lhs) != 1 || len(s.Rhs) != 1 || ident(s.Lhs[0]) != "res" {
		return false
	}
	ta, ok := s.Rhs[0].(*ast.TypeAssertExpr)
	return ok && ident(ta.X) == "resTmp"
}

func ident(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func exprText(n ast.Node, src []byte, fset *token.FileSet) string {
	return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
}

// sequentialCheck is how a list marshaler of gqlgen decides to marshal its
// elements one after another; listEdits adds the call of sequentialSelection
// (written by sequentialSource) to it.
const (
	isLen1     = "isLen1 := len(v) == 1"
	sequential = isLen1 + " || sequentialSelection(sel)"
)

// listEdits makes gqlgen's list marshalers, which marshal every element of
// a list of objects in a goroutine of its own, marshal them in turn when no
// field of the selection runs a resolver: a goroutine is there so that the
// elements' resolvers wait on a data loader together, and fields read from
// structs wait on nothing. A panic in an element stops the rest (gqlgen
// nils the whole list then anyway).
func listEdits(file *ast.File, src []byte, fset *token.FileSet) []edit {
	var out []edit
	for _, m := range methods(file, src, fset, "marshal") {
		from, body := m.from, m.body
		if !strings.Contains(body, "go f(i)") || strings.Count(body, isLen1+"\n") != 1 {
			continue
		}
		i := from + strings.Index(body, isLen1+"\n")
		out = append(out, edit{i, i + len(isLen1), sequential})
		// Inline calls stop at an element that panicked.
		const call = "if isLen1 {\n\t\t\tf(i)\n"
		if j := strings.Index(body, call); j >= 0 {
			j += from + len("if isLen1 {\n")
			out = append(out, edit{j, j, "if ret == nil {\nbreak\n}\n"})
		}
	}
	return out
}

// resolverFields lists, per object type, the fields a resolver or a method
// computes, read from the field contexts gqlgen wrote.
func resolverFields(file *ast.File, src []byte, fset *token.FileSet) map[string][]string {
	out := map[string][]string{}
	for _, m := range methods(file, src, fset, "fieldContext_") {
		body := m.body
		const key = "Object:     \""
		i := strings.Index(body, key)
		if i < 0 {
			continue
		}
		object := body[i+len(key):]
		object = object[:strings.IndexByte(object, '"')]
		field := strings.TrimPrefix(m.name, "fieldContext_"+object+"_")
		if _, ok := out[object]; !ok {
			out[object] = nil
		}
		if computed(body) {
			out[object] = append(out[object], field)
		}
	}
	return out
}

// companion is the Go file that goes beside the executor src.
func companion(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "generated.go", src, 0)
	if err != nil {
		return nil, err
	}
	extra, err := sequentialSource(file.Name.Name, resolverFields(file, src, fset), leafTypesUsed(src))
	if err != nil {
		return nil, err
	}
	return format.Source(append(extra, leafObjectsSource(file, src, fset)...))
}

// leafListDecl finds the leafList functions leafListEdits wrote.
var leafListDecl = regexp.MustCompile(`func \(ec \*executionContext\) leafList_(\w+)\(`)

// leafObjectsSource is the companion's part for lists of leaf objects:
// which fields each object's leafList writes, and the list value.
func leafObjectsSource(file *ast.File, src []byte, fset *token.FileSet) string {
	lists := leafListDecl.FindAllSubmatch(src, -1)
	if len(lists) == 0 {
		return ""
	}
	leaves := leafFields(file, src, fset)
	var b strings.Builder
	b.WriteString(`
// leafObjectFields are, per object whose lists have a leafList function,
// the fields that function writes itself: its direct leaves.
var leafObjectFields = map[string]map[string]bool{
`)
	for _, l := range lists {
		object := string(l[1])
		fmt.Fprintf(&b, "\t%q: {\"__typename\": true", object)
		for _, c := range leaves[object] {
			fmt.Fprintf(&b, ", %q: true", c.name)
		}
		b.WriteString("},\n")
	}
	b.WriteString(`}

// leafObjects is a list of n objects whose fields are all direct leaves,
// written as gqlgen writes a list of field sets: vals holds each element's
// values in the order of fields.
type leafObjects struct {
	fields []graphql.CollectedField
	vals   []graphql.Marshaler
	n      int
}

func (l leafObjects) MarshalGQL(w io.Writer) {
	// The response is a bytes.Buffer; another writer gets the list in one
	// Write, from a buffer of its own.
	buf, direct := w.(*bytes.Buffer)
	if !direct {
		buf = new(bytes.Buffer)
		defer func() { w.Write(buf.Bytes()) }()
	}
	buf.WriteByte('[')
	k := 0
	for i := 0; i < l.n; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('{')
		for j, f := range l.fields {
			key := buf.AvailableBuffer()
			if j > 0 {
				key = append(key, ',')
			}
			buf.Write(append(appendQuoted(key, f.Alias), ':'))
			l.vals[k].MarshalGQL(buf)
			k++
		}
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
}
`)
	return b.String()
}

// leafUse finds the leaf types the rewritten executor uses.
var leafUse = regexp.MustCompile(`\bleaf(String|Boolean|Int|Int32|Int64|Uint|Uint32|Uint64)\{&obj\.`)

// leafTypesUsed lists the built-in scalars whose leaf type the executor
// src uses, sorted.
func leafTypesUsed(src []byte) []string {
	seen := map[string]bool{}
	for _, m := range leafUse.FindAllSubmatch(src, -1) {
		seen[string(m[1])] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// digits is how a leaf of an integer scalar appends its decimal digits.
var digits = map[string]string{"Int": "strconv.AppendInt", "Int32": "strconv.AppendInt", "Int64": "strconv.AppendInt",
	"Uint": "strconv.AppendUint", "Uint32": "strconv.AppendUint", "Uint64": "strconv.AppendUint"}

// goType is the Go type of gqlgen's built-in scalar.
var goType = map[string]string{"String": "string", "Boolean": "bool", "Int": "int", "Int32": "int32",
	"Int64": "int64", "Uint": "uint", "Uint32": "uint32", "Uint64": "uint64"}

// sequentialSource is the Go file that goes beside the rewritten executor:
// the table of resolver fields and sequentialSelection.
func sequentialSource(pkg string, fields map[string][]string, leaves []string) ([]byte, error) {
	var b bytes.Buffer
	// The response buffer's part (responseBufferSource) is always there.
	std := []string{"bytes", "context", "sync/atomic"}
	thirdParty := []string{"github.com/vektah/gqlparser/v2/ast"}
	if len(leaves) > 0 {
		std = append(std, "io")
		for _, l := range leaves {
			if _, ok := digits[l]; ok {
				std = append(std, "strconv")
				break
			}
		}
		thirdParty = append([]string{"github.com/99designs/gqlgen/graphql"}, thirdParty...)
	}
	sort.Strings(std)
	imports := "import (\n"
	for _, p := range std {
		imports += "\t\"" + p + "\"\n"
	}
	imports += "\n"
	for _, p := range thirdParty {
		imports += "\t\"" + p + "\"\n"
	}
	imports += ")"
	fmt.Fprintf(&b, `// Code generated by cmd/gqlleaf from generated.go. DO NOT EDIT.

package %s

%s
`, pkg, imports)
	if len(leaves) > 0 {
		b.WriteString(`
// The leaf types marshal the value a field of a struct holds, read when
// the response is written: a struct of one pointer fits in an interface
// without an allocation, where the value itself would need one per field.
// Numbers go straight into the response buffer (gqlgen's marshalers make
// a string of each first), strings too (gqlgen's make a call through
// io.Writer for each run of bytes); what they write is what gqlgen's would.
`)
	}
	for _, l := range leaves {
		fmt.Fprintf(&b, "\ntype leaf%[1]s struct{ p *%[2]s }\n\nfunc (l leaf%[1]s) MarshalGQL(w io.Writer) {\n", l, goType[l])
		if l == "String" {
			b.WriteString(`	if buf, ok := w.(*bytes.Buffer); ok {
		buf.Write(appendQuoted(buf.AvailableBuffer(), *l.p))
		return
	}
`)
		}
		if appendFn, ok := digits[l]; ok {
			fmt.Fprintf(&b, `	if buf, ok := w.(*bytes.Buffer); ok {
		buf.Write(%s(buf.AvailableBuffer(), %s(*l.p), 10))
		return
	}
`, appendFn, map[string]string{"strconv.AppendUint": "uint64", "strconv.AppendInt": "int64"}[appendFn])
		}
		fmt.Fprintf(&b, "\tgraphql.Marshal%s(*l.p).MarshalGQL(w)\n}\n", l)
	}
	b.WriteString(`
// computedFields are, per object type, the fields that a resolver or a
// method computes; an object type absent here is an interface or a union.
var computedFields = map[string]map[string]bool{
`)
	objects := make([]string, 0, len(fields))
	for o := range fields {
		objects = append(objects, o)
	}
	sort.Strings(objects)
	for _, o := range objects {
		fmt.Fprintf(&b, "\t%q: {", o)
		sort.Strings(fields[o])
		for i, f := range fields[o] {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: true", f)
		}
		b.WriteString("},\n")
	}
	b.WriteString(`}

// sequentialSelection tells whether no field of sel, at any depth, is
// computed by a resolver or method, or selected on an interface or union:
// then a list's elements wait on nothing and are marshalled in turn.
func sequentialSelection(sel ast.SelectionSet) bool {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if s.Name == "__typename" {
				continue
			}
			if s.ObjectDefinition == nil {
				return false
			}
			computed, ok := computedFields[s.ObjectDefinition.Name]
			if !ok || computed[s.Name] || !sequentialSelection(s.SelectionSet) {
				return false
			}
		case *ast.InlineFragment:
			if !sequentialSelection(s.SelectionSet) {
				return false
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || !sequentialSelection(s.Definition.SelectionSet) {
				return false
			}
		}
	}
	return true
}
`)
	b.WriteString(responseBufferSource)
	b.WriteString(quoteSource)
	return format.Source(b.Bytes())
}
