package server

import (
	"context"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/tonql/tonql/resolvers"
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
	w := &costWalk{ctx: ctx, schema: es.Schema(), vars: op.Variables, limit: limit, frags: map[string]int{}}
	return w.set(op.Operation.SelectionSet)
}

type costWalk struct {
	ctx    context.Context
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
	if f.ObjectDefinition.Kind != ast.Interface {
		return w.one(f.ObjectDefinition.Name, f, child)
	}
	dearest := 0
	for _, t := range w.schema.GetPossibleTypes(f.ObjectDefinition) {
		dearest = max(dearest, w.one(t.Name, f, child))
	}
	return dearest
}

func (w *costWalk) one(object string, f *ast.Field, child int) int {
	if cost := listCosts[object][f.Name]; cost != nil {
		// Arguments are read only here: the list's own, from the document
		// and the variables (not through gqlgen's argument decoding, which
		// decoded the whole filter input of every page twice).
		return cost(child, f.ArgumentMap(w.vars), w.limit)
	}
	return satAdd(1, child, w.limit)
}

// listCost is what a list field costs: 1 plus its children times the
// list's size, saturating past limit.
type listCost func(child int, args map[string]any, limit int) int

// listCosts are the fields whose cost is not 1 plus their children's.
var listCosts = map[string]map[string]listCost{
	"Query":   {"actions": pageCost("limit")},
	"Account": {"actions": pageCost("first")},
	// An action's links are short lists; counted as typical sizes.
	// Its nested steps (children) are a few of its own transactions'
	// actions, so they count as such a list too (read capped at
	// resolvers.MaxTraceLinks); nested again, each level multiplies.
	"Action": {"participants": fixedCost(linkListSize), "transactions_full": fixedCost(linkListSize),
		"children": fixedCost(linkListSize)},
	"Transaction": {"out_msgs": fixedCost(linkListSize), "actions": fixedCost(linkListSize)},
	// A trace's lists are counted at their cap, not a typical size: a
	// trace can have thousands of actions, and a page of actions each
	// showing its trace's actions would otherwise fan out unseen.
	"Trace": {"actions": fixedCost(resolvers.MaxTraceLinks), "transactions": fixedCost(resolvers.MaxTraceLinks)},
}

// pageCost is the cost of a page whose size is the argument named size,
// the default page size when it is absent or not positive (the resolver
// refuses those it does not take).
func pageCost(size string) listCost {
	return func(child int, args map[string]any, limit int) int {
		n := resolvers.DefaultActionsLimit
		if v, ok := intArg(args[size]); ok && v > 0 {
			n = v
		}
		return satAdd(1, satMul(n, child, limit), limit)
	}
}

func fixedCost(n int) listCost {
	return func(child int, _ map[string]any, limit int) int { return satAdd(1, satMul(n, child, limit), limit) }
}

// intArg reads an Int argument as the document or the variables give it.
func intArg(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

// satMul is a*b for non-negative a and b, or limit+1 once past limit.
func satMul(a, b, limit int) int {
	if a > 0 && b > limit/a {
		return limit + 1
	}
	return a * b
}
