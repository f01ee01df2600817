package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// complexityOf is the operation's complexity as gqlgen's complexity
// package computes it (every field 1 plus its children, or the schema's own
// function of its arguments; an interface field costs its dearest
// implementation; introspection of __schema is free), with two
// differences: a fragment is computed once per operation and reused
// wherever it is spread (its fields' arguments see the same variables
// everywhere), and the walk stops once the total passes limit, returning
// a number above it. gqlgen's walk expands fragments, which is 2^n work
// for fragments that each spread the previous one twice.
func complexityOf(ctx context.Context, es graphql.ExecutableSchema, op *graphql.OperationContext, limit int) int {
	w := &costWalk{ctx: ctx, es: es, schema: es.Schema(), vars: op.Variables, limit: limit, frags: map[string]int{}}
	return w.set(op.Operation.SelectionSet)
}

type costWalk struct {
	ctx    context.Context
	es     graphql.ExecutableSchema
	schema *ast.Schema
	vars   map[string]any
	limit  int
	frags  map[string]int
	steps  int
}

func (w *costWalk) set(ss ast.SelectionSet) int {
	total := 0
	for _, sel := range ss {
		w.steps++
		if total > w.limit || w.steps&1023 == 0 && w.ctx.Err() != nil {
			return w.limit + 1
		}
		switch s := sel.(type) {
		case *ast.Field:
			if s.Definition == nil || s.ObjectDefinition == nil {
				continue // not validated; cannot happen after validation
			}
			def := w.schema.Types[s.Definition.Type.Name()]
			if def == nil || def.Name == "__Schema" {
				continue
			}
			child := 0
			switch def.Kind {
			case ast.Object, ast.Interface, ast.Union:
				child = w.set(s.SelectionSet)
			}
			total = satAdd(total, w.field(s, child), w.limit)
		case *ast.FragmentSpread:
			c, ok := w.frags[s.Name]
			if !ok && s.Definition != nil {
				w.frags[s.Name] = w.limit + 1 // a cycle; validation rejects those
				c = w.set(s.Definition.SelectionSet)
				w.frags[s.Name] = c
			}
			total = satAdd(total, c, w.limit)
		case *ast.InlineFragment:
			total = satAdd(total, w.set(s.SelectionSet), w.limit)
		}
	}
	return total
}

func (w *costWalk) field(f *ast.Field, child int) int {
	var args map[string]any // a field without arguments reads none: no map to build
	if len(f.Definition.Arguments) > 0 {
		args = f.ArgumentMap(w.vars)
	}
	if f.ObjectDefinition.Kind != ast.Interface {
		return w.one(f.ObjectDefinition.Name, f.Name, child, args)
	}
	dearest := 0
	for _, t := range w.schema.GetPossibleTypes(f.ObjectDefinition) {
		dearest = max(dearest, w.one(t.Name, f.Name, child, args))
	}
	return dearest
}

func (w *costWalk) one(object, field string, child int, args map[string]any) int {
	if c, ok := w.es.Complexity(w.ctx, object, field, child, args); ok && c >= child {
		return c
	}
	return satAdd(1, child, w.limit)
}
