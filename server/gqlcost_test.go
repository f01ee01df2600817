package server

import (
	"context"
	"strconv"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"

	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/resolvers"
)

// A page whose size argument is absent costs DefaultActionsLimit: that
// must be the schema's default for every size argument the walk reads.
func TestPageSizeDefaultsAreTheSchemas(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for object, fields := range listCosts {
		for field, list := range fields {
			if list.sizeArg == "" {
				continue
			}
			def := schema.Types[object].Fields.ForName(field).Arguments.ForName(list.sizeArg)
			if def == nil || def.DefaultValue == nil || def.DefaultValue.Raw != strconv.Itoa(resolvers.DefaultActionsLimit) {
				t.Fatalf("%s.%s(%s): the schema's default is not %d", object, field, list.sizeArg, resolvers.DefaultActionsLimit)
			}
		}
	}
}

// An operation's complexity is fixed (kept with its document) unless a
// variable gives a size it counts; variables elsewhere (a filter) do not
// matter. (A page of size n costs 1 plus n times what it holds, here
// `actions { type }`, 2.)
func TestComplexityFixedUnlessAVariableSizesAList(t *testing.T) {
	es := graph.NewExecutableSchema(graph.Config{})
	for _, tc := range []struct {
		query string
		vars  map[string]any
		cost  int
		fixed bool
	}{
		{`query($a: String) { actions(filter: {account: $a}, limit: 7) { actions { type } } }`, map[string]any{"a": "0:AB"}, 1 + 2*7, true},
		{`{ actions { actions { type } } }`, nil, 1 + 2*resolvers.DefaultActionsLimit, true},
		{`query($n: Int) { actions(limit: $n) { actions { type } } }`, map[string]any{"n": int64(30)}, 1 + 2*30, false},
		{`query($n: Int = 5) { actions(limit: $n) { actions { type } } }`, nil, 1 + 2*5, false},
		{`query($n: Int) { ...F } fragment F on Query { actions(limit: $n) { actions { type } } }`, nil, 1 + 2*resolvers.DefaultActionsLimit, false},
	} {
		doc, errs := gqlparser.LoadQuery(es.Schema(), tc.query)
		if errs != nil {
			t.Fatal(tc.query, errs)
		}
		op := &graphql.OperationContext{Operation: doc.Operations[0], Variables: tc.vars}
		cost, fixed := complexityOf(context.Background(), es, op, maxComplexity)
		if cost != tc.cost || fixed != tc.fixed {
			t.Errorf("%s: cost %d fixed %v; want %d %v", tc.query, cost, fixed, tc.cost, tc.fixed)
		}
	}
}
