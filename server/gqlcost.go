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
//
// fixed tells that no variable entered the sum (every list's size is
// written in the document or left to its default), so the operation costs
// the same whatever its variables: the limits keep it with the document.
func complexityOf(ctx context.Context, es graphql.ExecutableSchema, op *graphql.OperationContext, limit int) (cost int, fixed bool) {
	w := &costWalk{ctx: ctx, schema: es.Schema(), vars: op.Variables, limit: limit, frags: map[string]int{}}
	cost = w.set(op.Operation.SelectionSet)
	return cost, !w.usedVars
}

type costWalk struct {
	ctx    context.Context
	schema *ast.Schema
	vars   map[string]any
	limit  int
	frags  map[string]int
	steps  int
	// usedVars: a list's cost read an argument given by a variable.
	usedVars bool
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
	list, ok := listCosts[object][f.Name]
	if !ok {
		return satAdd(1, child, w.limit)
	}
	n := list.size
	if list.sizeArg != "" {
		// The size is read only here, from the document or the variables
		// (not through gqlgen's argument decoding, which decoded the whole
		// filter input of every page twice).
		n = resolvers.DefaultActionsLimit
		if a := f.Arguments.ForName(list.sizeArg); a != nil {
			// An Int is a literal or a variable, nothing nested. An absent
			// variable takes its own default, else the schema's
			// (DefaultActionsLimit); a size the resolver refuses (not
			// positive) costs the default too.
			w.usedVars = w.usedVars || a.Value.Kind == ast.Variable
			if v, err := a.Value.Value(w.vars); err == nil {
				if v, ok := intArg(v); ok && v > 0 {
					n = v
				}
			}
		}
	}
	return satAdd(1, satMul(n, child, w.limit), w.limit)
}

// listCost is what a list field costs: 1 plus its children times the
// list's size, saturating past limit. The size is that of a page, the
// argument sizeArg (the default page size when it is absent or not
// positive), or else the fixed size.
type listCost struct {
	sizeArg string
	size    int
}

// listCosts are the fields whose cost is not 1 plus their children's.
var listCosts = map[string]map[string]listCost{
	"Query": {"actions": {sizeArg: "limit"}, "transactions": {sizeArg: "limit"}, "messages": {sizeArg: "limit"},
		"blocks": {sizeArg: "limit"}},
	"Account": {"actions": {sizeArg: "first"}, "transactions": {sizeArg: "first"}, "jettons": {sizeArg: "first"}, "nfts": {sizeArg: "first"},
		"trades": {sizeArg: "first"}, "dnsRecords": {sizeArg: "limit"},
		// One result per pair the account traded: counted as a page.
		"trade_results": {size: resolvers.DefaultActionsLimit}},
	"Token": {"holders": {sizeArg: "first"}},
	// A series' points are rows of one primary-key range scan, bounded at
	// cost.MaxPoints by the resolver; counted at the default range's size
	// (at the bound, a year of 1h candles would cost past the operation's
	// limit for what is one cheap read).
	"CandleSeries": {"candles": {size: resolvers.DefaultPoints}},
	"VolumeSeries": {"volumes": {size: resolvers.DefaultPoints}},
	// An action's links are short lists; counted as typical sizes.
	// Its nested steps (children) are a few of its own transactions'
	// actions, so they count as such a list too (read capped at
	// resolvers.MaxTraceLinks); nested again, each level multiplies.
	"Action": {"participants": {size: linkListSize}, "transactions_full": {size: linkListSize},
		"children": {size: linkListSize}},
	"Transaction": {"out_msgs": {size: linkListSize}, "actions": {size: linkListSize}},
	// A trace's lists are counted at their cap, not a typical size: a
	// trace can have thousands of actions, and a page of actions each
	// showing its trace's actions would otherwise fan out unseen.
	"Trace": {"actions": {size: resolvers.MaxTraceLinks}, "transactions": {size: resolvers.MaxTraceLinks}},
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
