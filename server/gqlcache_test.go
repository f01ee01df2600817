package server

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/tonql/tonql/graph"
)

// The cache's cost estimate is at least what a parsed and validated
// document holds, per byte of its text, for the shapes that hold the most
// (many short fields, aliases, arguments, nested lists).
func TestDocCacheCostEstimate(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	shapes := map[string]func(i int) string{
		"aliases": func(i int) string {
			var b strings.Builder
			fmt.Fprintf(&b, "{ q%d: __typename", i)
			for j := 0; j < 25; j++ {
				fmt.Fprintf(&b, " a%d: actions(limit: %d, offset: %d) { actions { action_id type } }", j, 1+j%5, j)
			}
			return b.String() + " }"
		},
		"short fields": func(i int) string {
			return fmt.Sprintf("{ q%d: __typename", i) + strings.Repeat(" __typename", 300) + " }"
		},
		"arguments": func(i int) string {
			return fmt.Sprintf(`{ actions(limit: %d, filter: {action_id: [`, i+1) + strings.Repeat(`"a" `, 3000) + `]}) { actions { type } } }`
		},
		"empty strings": func(i int) string {
			return fmt.Sprintf(`{ actions(limit: %d, filter: {action_id: [`, i+1) + strings.Repeat(`"",`, 4000) + `]}) { actions { type } } }`
		},
		"fragments": func(i int) string {
			var b strings.Builder
			fmt.Fprintf(&b, "{ q%d: __typename ...F0 }", i)
			for j := 0; j < 60; j++ {
				fmt.Fprintf(&b, " fragment F%d on Query { __typename ...F%d }", j, j+1)
			}
			return b.String() + " fragment F60 on Query { __typename }"
		},
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			const n = 40
			queries := make([]string, n)
			text := 0
			for i := range queries {
				queries[i] = shape(i)
				text += len(queries[i])
			}
			heap := func() uint64 {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				return m.HeapAlloc
			}
			before := heap()
			docs := make([]*ast.QueryDocument, n)
			for i, q := range queries {
				doc, err := parser.ParseQuery(&ast.Source{Input: q})
				if err != nil {
					t.Fatal(err)
				}
				if errs := validator.Validate(schema, doc); len(errs) > 0 {
					t.Fatal(errs)
				}
				docs[i] = doc
			}
			perByte := float64(heap()-before) / float64(text)
			runtime.KeepAlive(docs)
			t.Logf("%s: %.1f bytes of parsed document per byte of query", name, perByte)
			if perByte > docCostPerByte {
				t.Fatalf("documents hold %.1f bytes per byte; the estimate is %d", perByte, docCostPerByte)
			}
		})
	}
}

func TestDocCacheBoundedInBytes(t *testing.T) {
	c := newDocCache(100_000)
	ctx := context.Background()
	q := func(i int) string { return fmt.Sprintf("{ q%d: __typename }", i) + strings.Repeat(" ", 500) }
	for i := range 1000 {
		c.Add(ctx, q(i), &ast.QueryDocument{})
		if used, _ := c.usage(); used > 100_000 {
			t.Fatalf("holds %d bytes", used)
		}
	}
	_, n := c.usage()
	if n != int(100_000/docCost(q(0))) {
		t.Fatalf("holds %d documents", n)
	}
	// Least recently used go first.
	if _, ok := c.Get(ctx, q(999)); !ok {
		t.Fatal("the newest document was dropped")
	}
	if _, ok := c.Get(ctx, q(0)); ok {
		t.Fatal("the oldest document was kept")
	}
	// A document larger than the whole cache is not kept.
	c.Add(ctx, strings.Repeat("x", 100_000), &ast.QueryDocument{})
	if _, ok := c.Get(ctx, strings.Repeat("x", 100_000)); ok {
		t.Fatal("an oversized document was kept")
	}
}

// A complexity is kept with the cached document whose operation it is,
// and only there: not for a query that is not cached, nor for an
// operation of another parse of the same text (a document evicted and
// parsed again), and it goes when the document is evicted.
func TestDocCacheKeepsComplexityWithItsDocument(t *testing.T) {
	ctx := context.Background()
	parse := func(q string) *ast.QueryDocument {
		doc, err := parser.ParseQuery(&ast.Source{Input: q})
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	const q = "{ __typename }"
	c := newDocCache(docCost(q))
	doc := parse(q)
	c.setCost(q, doc.Operations[0], 7) // not cached yet
	if _, ok := c.cost(q, doc.Operations[0]); ok {
		t.Fatal("a complexity was kept for a query not in the cache")
	}
	c.Add(ctx, q, doc)
	c.setCost(q, parse(q).Operations[0], 9) // another parse's operation
	if _, ok := c.cost(q, doc.Operations[0]); ok {
		t.Fatal("a complexity of another document's operation was kept")
	}
	c.setCost(q, doc.Operations[0], 7)
	if n, ok := c.cost(q, doc.Operations[0]); !ok || n != 7 {
		t.Fatalf("kept %d, %v", n, ok)
	}
	c.Add(ctx, "{__typename  }", parse("{__typename  }")) // as long as q: evicts it
	c.Add(ctx, q, doc)
	if _, ok := c.cost(q, doc.Operations[0]); ok {
		t.Fatal("a complexity outlived its document's eviction")
	}
}
