package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// field is one field function and its field context as gqlgen 0.17.78
// writes them; read is what the resolver middleware's closure returns.
func field(name, read, isResolver, child string) string {
	return strings.NewReplacer("NAME", name, "READ", read, "ISRESOLVER", isResolver, "CHILD", child).Replace(`
func (ec *executionContext) _Action_NAME(ctx context.Context, field graphql.CollectedField, obj *chain.Action) (ret graphql.Marshaler) {
	fc, err := ec.fieldContext_Action_NAME(ctx, field)
	if err != nil {
		return graphql.Null
	}
	ctx = graphql.WithFieldContext(ctx, fc)
	defer func() {
		if r := recover(); r != nil {
			ec.Error(ctx, ec.Recover(ctx, r))
			ret = graphql.Null
		}
	}()
	resTmp, err := ec.ResolverMiddleware(ctx, func(rctx context.Context) (any, error) {
		ctx = rctx // use context from middleware stack in children
		return READ
	})
	if err != nil {
		ec.Error(ctx, err)
		return graphql.Null
	}
	if resTmp == nil {
		if !graphql.HasFieldError(ctx, fc) {
			ec.Errorf(ctx, "must not be null")
		}
		return graphql.Null
	}
	res := resTmp.(uint64)
	fc.Result = res
	return ec.marshalNUInt642uint64(ctx, field.Selections, res)
}

func (ec *executionContext) fieldContext_Action_NAME(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	fc = &graphql.FieldContext{
		Object:     "Action",
		Field:      field,
		IsMethod:   false,
		IsResolver: ISRESOLVER,
		Child: func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			CHILD
		},
	}
	return fc, nil
}
`)
}

// funcBody is the text of the executor method name in src, up to its
// closing brace.
func funcBody(src []byte, name string) string {
	s := string(src)
	s = s[strings.Index(s, "func (ec *executionContext) "+name+"("):]
	return s[:strings.Index(s, "\n}\n")]
}

const leafChild = `return nil, errors.New("field of type UInt64 does not have child fields")`

func TestRewriteReadsLeafFieldsDirectly(t *testing.T) {
	src := "package graph\n" +
		field("start_lt", "obj.StartLt, nil", "false", leafChild) +
		field("details", "ec.resolvers.Action().Details(rctx, obj)", "true", leafChild) +
		field("nested", "obj.Inner.Lt, nil", "false", leafChild) +
		field("object", "obj.Page, nil", "false", `switch field.Name { }
			return nil, nil`)
	out, n, err := rewrite([]byte(src))
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the leaf read straight from a field of obj")
	got := string(out)
	start := funcBody(out, "_Action_start_lt")
	require.Contains(t, start, "res := obj.StartLt\n\tif any(res) == nil {")
	require.Contains(t, start, "ctx = graphql.WithFieldContext(ctx, fc)", "error paths keep the field")
	require.Contains(t, start, "recover()", "a panic stays a field error")
	require.NotContains(t, start, "ResolverMiddleware")
	require.NotContains(t, start, "resTmp")
	require.NotContains(t, start, "fc.Result")
	require.Equal(t, 3, strings.Count(got, "ec.ResolverMiddleware("), "resolver, nested read and object field untouched")

	again, n, err := rewrite(out)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, string(out), string(again), "a second run changes nothing")
}

// The committed executor is gqlleaf's output: go generate ./graph was run
// whole (CI regenerates it and fails on a diff too).
func TestCommittedExecutorIsRewritten(t *testing.T) {
	src, err := os.ReadFile("../../graph/generated.go")
	require.NoError(t, err)
	out, n, err := rewrite(src)
	require.NoError(t, err)
	require.Zero(t, n, "run go generate ./graph")
	require.Equal(t, string(src), string(out))
	require.Greater(t, strings.Count(string(src), "res := obj."), 800)
	require.Contains(t, string(src), "if m, ok := ec.leafList_Action(ctx, sel, v); ok {", "lists of actions have the leaf path")
	require.Contains(t, string(src), "buf := responseBuffer(ctx)", "the query's answer goes into a lent buffer")
	require.Equal(t, strings.Count(string(src), "go f(i)"), strings.Count(string(src), sequential),
		"every list marshaler that spawns goroutines asks sequentialSelection first")
	extra, err := companion(src)
	require.NoError(t, err)
	committed, err := os.ReadFile("../../graph/" + CompanionFile)
	require.NoError(t, err)
	require.Equal(t, string(extra), string(committed))
	require.Regexp(t, `"Action":\s+\{"children": true, "description": true, "details": true, "parent": true, "participants": true, "title": true, "trace": true, "transactions_full": true\}`, string(extra))
}

// A field whose marshaler can report no error gets no field context
// unless its value is nil; one whose marshaler can keeps it (error paths).
func TestRewriteDropsTheFieldContextOnlyForQuietMarshalers(t *testing.T) {
	quiet := `
func (ec *executionContext) marshalNUInt642uint64(ctx context.Context, sel ast.SelectionSet, v uint64) graphql.Marshaler {
	_ = sel
	res := graphql.MarshalUint64(v)
	if res == graphql.Null {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			ec.Errorf(ctx, "the requested element is null which the schema does not allow")
		}
	}
	return res
}
`
	loud := strings.ReplaceAll(quiet, "marshalNUInt642uint64", "marshalNJSON2uint64")
	loud = strings.ReplaceAll(loud, "graphql.MarshalUint64(v)", "graphql.MarshalAny(v)")
	src := "package graph\n" + quiet + loud + field("a", "obj.A, nil", "false", leafChild) +
		strings.ReplaceAll(field("b", "obj.B, nil", "false", leafChild), "marshalNUInt642uint64", "marshalNJSON2uint64")
	out, n, err := rewrite([]byte(src))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	a := funcBody(out, "_Action_a")
	require.Contains(t, a, "res := obj.A\n\tif any(res) == nil {\n\t\tfc, err := ec.fieldContext_Action_a(ctx, field)")
	require.Contains(t, a, "ec.Errorf(ctx, \"must not be null\")", "the null branch is gqlgen's")
	require.NotContains(t, a, "recover()")
	require.Contains(t, funcBody(out, "_Action_b"), "recover()", "a marshaler that may report an error keeps the field context")
}

// A leaf whose marshaler takes the value as is is handed over as a pointer
// into obj (no allocation): a built-in scalar through its leaf type, a
// custom scalar that marshals itself as &obj.F, a nilable one after a nil
// check that keeps gqlgen's error path. Pointers and conversions are left
// to gqlgen's marshaler.
func TestRewriteHandsOverPointers(t *testing.T) {
	marshalers := `
func (ec *executionContext) marshalNUInt642uint64(ctx context.Context, sel ast.SelectionSet, v uint64) graphql.Marshaler {
	_ = sel
	res := graphql.MarshalUint64(v)
	if res == graphql.Null {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			ec.Errorf(ctx, "the requested element is null which the schema does not allow")
		}
	}
	return res
}

func (ec *executionContext) marshalNAddress2actionsAddress(ctx context.Context, sel ast.SelectionSet, v actions.Address) graphql.Marshaler {
	return v
}

func (ec *executionContext) marshalNJSON2chainRawJSON(ctx context.Context, sel ast.SelectionSet, v chain.RawJSON) graphql.Marshaler {
	if v == nil {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			ec.Errorf(ctx, "the requested element is null which the schema does not allow")
		}
		return graphql.Null
	}
	return v
}

func (ec *executionContext) marshalOAddress2ptr(ctx context.Context, sel ast.SelectionSet, v *actions.Address) graphql.Marshaler {
	if v == nil {
		return graphql.Null
	}
	return v
}
`
	src := "package graph\n" + marshalers +
		field("a", "obj.A, nil", "false", leafChild) +
		strings.ReplaceAll(field("b", "obj.B, nil", "false", leafChild), "marshalNUInt642uint64", "marshalNAddress2actionsAddress") +
		strings.ReplaceAll(field("c", "obj.C, nil", "false", leafChild), "marshalNUInt642uint64", "marshalNJSON2chainRawJSON") +
		strings.ReplaceAll(field("d", "obj.D, nil", "false", leafChild), "marshalNUInt642uint64", "marshalOAddress2ptr") +
		strings.ReplaceAll(field("e", "obj.E, nil", "false", leafChild), "field.Selections, res)", "field.Selections, uint64(res))")
	out, n, err := rewrite([]byte(src))
	require.NoError(t, err)
	require.Equal(t, 5, n)
	require.Contains(t, funcBody(out, "_Action_a"), "return leafUint64{&obj.A}")
	require.Contains(t, funcBody(out, "_Action_b"), "return &obj.B")
	c := funcBody(out, "_Action_c")
	require.Contains(t, c, "if obj.C == nil {")
	require.Contains(t, c, "ctx = graphql.WithFieldContext(ctx, fc)\n\t\treturn ec.marshalNJSON2chainRawJSON(ctx, field.Selections, obj.C)", "nil keeps gqlgen's error path")
	require.Contains(t, c, "return &obj.C")
	require.Contains(t, funcBody(out, "_Action_d"), "ec.marshalOAddress2ptr(ctx, field.Selections, res)", "a pointer stays gqlgen's")
	require.Contains(t, funcBody(out, "_Action_e"), "ec.marshalNUInt642uint64(ctx, field.Selections, uint64(res))", "a conversion stays gqlgen's")

	extra, err := companion(out)
	require.NoError(t, err)
	require.Contains(t, string(extra), "type leafUint64 struct{ p *uint64 }")
	require.NotContains(t, string(extra), "leafString", "only the leaf types in use")
}

// The query's answer is marshalled into the buffer a transport lends; the
// edit is made once, and a generator whose Exec no longer has gqlgen's
// buffer is refused rather than left silently unoptimized.
func TestBufferEditLendsTheQueryBuffer(t *testing.T) {
	exec := execDecl + "ctx context.Context) graphql.ResponseHandler {\n\t\t\tfirst = false\n" + marshalIntoOwnBuffer + "\t\t\tresponse.Data = buf.Bytes()\n"
	edits, err := bufferEdit([]byte(exec))
	require.NoError(t, err)
	require.Len(t, edits, 1)
	e := edits[0]
	out := exec[:e.from] + e.text + exec[e.to:]
	require.Equal(t, execDecl+"ctx context.Context) graphql.ResponseHandler {\n\t\t\tfirst = false\n\t\t\tbuf := responseBuffer(ctx)\n\t\t\tdata.MarshalGQL(buf)\n\t\t\tresponse.Data = buf.Bytes()\n", out)
	again, err := bufferEdit([]byte(out))
	require.NoError(t, err)
	require.Empty(t, again, "rewriting twice changes nothing")
	_, err = bufferEdit([]byte(execDecl + "\t\t\tresponse.Data = somethingElse()\n"))
	require.ErrorContains(t, err, "not found")
	_, err = bufferEdit([]byte(exec + exec))
	require.ErrorContains(t, err, "2 times")
}
