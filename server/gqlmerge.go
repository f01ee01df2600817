package server

import (
	"context"

	"github.com/vektah/gqlparser/v2/ast"
)

// mergeWork estimates from above the work of gqlparser's
// OverlappingFieldsCanBeMerged validation rule on doc, and stops counting
// once past budget. That rule is quadratic: within every selection set it
// compares each pair of fields with the same response name (fields of
// inline fragments and spread fragments included), and for each pair their
// sub-selections field by field, recursively; `{ __typename __typename
// ... }` 5,000 times costs seconds. The estimate follows the same steps
// but expands fragments where the rule remembers fragment pairs, so it
// may overstate the rule's work, never understate it. Its own cost is
// bounded by the budget.
func mergeWork(ctx context.Context, doc *ast.QueryDocument, budget int) int {
	m := &merger{ctx: ctx, doc: doc, budget: budget, visiting: map[string]bool{}}
	for _, op := range doc.Operations {
		m.all(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		m.all(f.SelectionSet)
	}
	return m.work
}

type merger struct {
	ctx      context.Context
	doc      *ast.QueryDocument
	work     int
	budget   int
	visiting map[string]bool // fragments being expanded (cycles are validation errors)
}

func (m *merger) over() bool { return m.work > m.budget }

// charge counts n units; an ended request stops the count as if over.
func (m *merger) charge(n int) bool {
	before := m.work
	m.work += n
	if before>>10 != m.work>>10 && m.ctx.Err() != nil {
		m.work = m.budget + 1
	}
	return !m.over()
}

// all runs the rule on ss and on every selection set nested in it; the
// rule runs on each field's and inline fragment's set.
func (m *merger) all(ss ast.SelectionSet) {
	if m.over() || len(ss) == 0 {
		return
	}
	m.within(ss)
	for _, sel := range ss {
		switch x := sel.(type) {
		case *ast.Field:
			m.all(x.SelectionSet)
		case *ast.InlineFragment:
			m.all(x.SelectionSet)
		}
	}
}

func (m *merger) within(ss ast.SelectionSet) {
	for _, group := range m.collect(ss) {
		for i, a := range group {
			for _, b := range group[i+1:] {
				if !m.compare(a, b) {
					return
				}
			}
		}
	}
}

func (m *merger) compare(a, b *ast.Field) bool {
	if !m.charge(1) {
		return false
	}
	if len(a.SelectionSet) == 0 || len(b.SelectionSet) == 0 {
		return true
	}
	ma, mb := m.collect(a.SelectionSet), m.collect(b.SelectionSet)
	for name, ga := range ma {
		for _, x := range ga {
			for _, y := range mb[name] {
				if !m.compare(x, y) {
					return false
				}
			}
		}
	}
	return true
}

// collect groups the fields of ss by response name, through inline
// fragments and spreads, charging one unit per selection visited.
func (m *merger) collect(ss ast.SelectionSet) map[string][]*ast.Field {
	out := map[string][]*ast.Field{}
	m.collectInto(ss, out)
	return out
}

func (m *merger) collectInto(ss ast.SelectionSet, out map[string][]*ast.Field) {
	for _, sel := range ss {
		if !m.charge(1) {
			return
		}
		switch x := sel.(type) {
		case *ast.Field:
			name := x.Alias
			if name == "" {
				name = x.Name
			}
			out[name] = append(out[name], x)
		case *ast.InlineFragment:
			m.collectInto(x.SelectionSet, out)
		case *ast.FragmentSpread:
			def := m.doc.Fragments.ForName(x.Name)
			if def == nil || m.visiting[x.Name] {
				continue
			}
			m.visiting[x.Name] = true
			m.collectInto(def.SelectionSet, out)
			delete(m.visiting, x.Name)
		}
	}
}
