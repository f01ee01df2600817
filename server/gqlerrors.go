package server

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/tonql/tonql/apperr"
)

// maxMessageBytes bounds an error message: gqlparser's messages quote the
// offending value whole, and a client must not get its 1 MB body back.
const maxMessageBytes = 300

// presenter gives every error its extensions.code and a client-safe
// message:
//   - gqlparser's parse and validation errors and the limits pass through,
//     shortened; a variable of the wrong type is named with the type it
//     needs (not the Go kind gqlparser names);
//   - an argument gqlgen could not decode (a negative UInt64, a string for
//     an enum) is INVALID_INPUT naming the argument and the type it needs,
//     never INTERNAL;
//   - resolver errors are classified by apperr; internal ones are logged
//     and shown as "internal error".
func presenter(schema *ast.Schema) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		var gqlErr *gqlerror.Error
		if errors.As(err, &gqlErr) {
			var ae *apperr.Error
			switch {
			case gqlErr.Err == nil:
				if len(gqlErr.Path) >= 2 && gqlErr.Path[0] == ast.PathName("variable") {
					gqlErr.Message = variableMessage(ctx, schema, gqlErr)
				}
				gqlErr.Message = shorten(gqlErr.Message)
				return gqlErr
			case !errors.As(gqlErr.Err, &ae):
				return inputError(ctx, schema, gqlErr)
			}
		}
		e := apperr.From(err)
		if e.Kind == apperr.Internal {
			slog.ErrorContext(ctx, "internal error", "err", err)
		}
		out := graphql.DefaultErrorPresenter(ctx, err)
		out.Message = e.Public()
		out.Err = nil
		if out.Extensions == nil {
			out.Extensions = map[string]any{}
		}
		out.Extensions["code"] = e.Kind.Info().GQLCode
		if e.Field != "" {
			out.Extensions["field"] = e.Field
		}
		return out
	}
}

// inputError reports an argument value gqlgen's generated code could not
// decode; the error's path is the field's path, the argument's name and
// the input fields or list positions inside it.
func inputError(ctx context.Context, schema *ast.Schema, gqlErr *gqlerror.Error) *gqlerror.Error {
	name := lastName(gqlErr.Path)
	msg := name + ": invalid value"
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Definition != nil {
		rest := gqlErr.Path
		if n := len(fc.Path()); n <= len(rest) {
			rest = rest[n:]
		}
		if len(rest) > 0 {
			if arg, ok := rest[0].(ast.PathName); ok {
				if def := fc.Field.Definition.Arguments.ForName(string(arg)); def != nil {
					if t := typeAt(schema, def.Type, rest[1:]); t != nil {
						msg = name + ": must be " + describeType(schema, t)
					}
				}
			}
		}
	}
	kind := apperr.Invalid.Info()
	return &gqlerror.Error{
		Message:    shorten(msg),
		Path:       gqlErr.Path,
		Extensions: map[string]any{"code": kind.GQLCode, "field": name},
	}
}

// variableMessage names the type a variable (or a field or element inside
// it) needs, for the errors gqlparser words in Go's terms ("cannot use map
// as String").
func variableMessage(ctx context.Context, schema *ast.Schema, gqlErr *gqlerror.Error) string {
	msg := gqlErr.Message
	if !strings.HasPrefix(msg, "cannot use ") && !strings.HasPrefix(msg, "must be a ") &&
		!strings.Contains(msg, " is not a valid ") && !strings.HasPrefix(msg, "enums must be") {
		return "variable $" + pathString(gqlErr.Path[1:]) + ": " + msg
	}
	op := graphql.GetOperationContext(ctx)
	if op == nil || op.Operation == nil {
		return "variable $" + pathString(gqlErr.Path[1:]) + ": invalid value"
	}
	name, _ := gqlErr.Path[1].(ast.PathName)
	def := op.Operation.VariableDefinitions.ForName(string(name))
	if def == nil {
		return "variable $" + pathString(gqlErr.Path[1:]) + ": invalid value"
	}
	t := typeAt(schema, def.Type, gqlErr.Path[2:])
	if t == nil {
		return "variable $" + pathString(gqlErr.Path[1:]) + ": invalid value"
	}
	return "variable $" + pathString(gqlErr.Path[1:]) + ": must be " + describeType(schema, t)
}

// typeAt follows input fields and list positions from t.
func typeAt(schema *ast.Schema, t *ast.Type, path ast.Path) *ast.Type {
	for _, p := range path {
		if t == nil {
			return nil
		}
		switch p := p.(type) {
		case ast.PathIndex:
			t = t.Elem
		case ast.PathName:
			def := schema.Types[t.Name()]
			if def == nil || t.Elem != nil {
				return nil
			}
			f := def.Fields.ForName(string(p))
			if f == nil {
				return nil
			}
			t = f.Type
		}
	}
	return t
}

// describeType says what a value of t looks like, in the words of the
// REST routes' messages.
func describeType(schema *ast.Schema, t *ast.Type) string {
	if t.Elem != nil {
		return "a list (each " + strings.TrimPrefix(describeType(schema, t.Elem), "must be ") + ")"
	}
	switch t.NamedType {
	case "UInt64":
		return "an integer from 0 to 18446744073709551615 (a number or a decimal string)"
	case "UInt32":
		return "an integer from 0 to 4294967295"
	case "Int":
		return "an integer from -2147483648 to 2147483647"
	case "Float":
		return "a number"
	case "Boolean":
		return "true or false"
	case "String", "ID":
		return "a string"
	}
	def := schema.Types[t.NamedType]
	switch {
	case def == nil:
		return "a " + t.NamedType
	case def.Kind == ast.Enum:
		names := make([]string, len(def.EnumValues))
		for i, v := range def.EnumValues {
			names[i] = v.Name
		}
		return "one of " + strings.Join(names, ", ")
	case def.Kind == ast.InputObject:
		return "an object (" + t.NamedType + ")"
	}
	return "a " + t.NamedType
}

func lastName(p ast.Path) string {
	for i := len(p) - 1; i >= 0; i-- {
		if n, ok := p[i].(ast.PathName); ok {
			return string(n)
		}
	}
	return "argument"
}

func pathString(p ast.Path) string {
	var b strings.Builder
	for i, e := range p {
		switch e := e.(type) {
		case ast.PathName:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(e))
		case ast.PathIndex:
			b.WriteString("[" + strconv.Itoa(int(e)) + "]")
		}
	}
	return b.String()
}

// shorten cuts a message at maxMessageBytes on a character boundary.
func shorten(s string) string {
	if len(s) <= maxMessageBytes {
		return s
	}
	cut := maxMessageBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
