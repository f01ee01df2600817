package server

import (
	"context"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// shapeWalk measures a parsed, not yet validated document: nothing in it
// is trusted (fragments may be unknown or cyclic; gqlparser reports those
// afterwards). Each fragment is measured once and its numbers reused
// wherever it is spread.
type shapeWalk struct {
	ctx   context.Context
	doc   *ast.QueryDocument
	frags map[string]*fragShape
	steps int
	err   *gqlerror.Error
}

// shape is what a selection set adds where it is used. Counts saturate at
// limit+1: past a limit the exact number does not matter.
type shape struct {
	depth      int // deepest field path outside introspection
	introDepth int // deepest path through __schema or __type
	aliases    int
	fields     int
}

type fragShape struct {
	shape
	busy bool // being measured: a cycle, which validation rejects
}

func newShapeWalk(ctx context.Context, doc *ast.QueryDocument) *shapeWalk {
	return &shapeWalk{ctx: ctx, doc: doc, frags: make(map[string]*fragShape, len(doc.Fragments))}
}

// check applies the document limits to every operation and fragment.
func (w *shapeWalk) check() *gqlerror.Error {
	for _, op := range w.doc.Operations {
		w.values(op.VariableDefinitions, op.Directives)
		s := w.set(op.SelectionSet)
		if w.err != nil {
			return w.err
		}
		switch {
		case s.depth > maxDepth:
			return limitError("query depth %d exceeds the limit of %d", s.depth, maxDepth)
		case s.introDepth > maxIntrospectionDepth:
			return limitError("introspection depth %d exceeds the limit of %d", s.introDepth, maxIntrospectionDepth)
		case s.aliases > maxAliases:
			return limitError("query uses %s aliases; the limit is %d", atLeast(s.aliases, maxAliases), maxAliases)
		case s.fields > maxFields:
			return limitError("query selects %s fields with its fragments expanded; the limit is %d", atLeast(s.fields, maxFields), maxFields)
		}
	}
	for _, f := range w.doc.Fragments {
		w.fragment(f.Name) // fragments nobody spreads are still validated
	}
	if w.err != nil {
		return w.err
	}
	if work := mergeWork(w.ctx, w.doc, maxMergeWork); work > maxMergeWork {
		return limitError("query repeats fields so often that checking it would compare over %d pairs of fields; use aliases or fewer repeats", maxMergeWork)
	}
	if w.ctx.Err() != nil {
		return timeoutError()
	}
	return nil
}

func atLeast(n, limit int) string {
	if n > limit {
		return "more than " + strconv.Itoa(limit)
	}
	return strconv.Itoa(n)
}

func (w *shapeWalk) tick() bool {
	w.steps++
	if w.steps&1023 == 0 && w.ctx.Err() != nil && w.err == nil {
		w.err = timeoutError()
	}
	return w.err == nil
}

func (w *shapeWalk) set(ss ast.SelectionSet) shape {
	var out shape
	for _, sel := range ss {
		if !w.tick() {
			return out
		}
		var s shape
		switch x := sel.(type) {
		case *ast.Field:
			w.args(x.Arguments, x.Directives)
			child := w.set(x.SelectionSet)
			s = shape{aliases: child.aliases, fields: satAdd(child.fields, 1, maxFields)}
			if x.Alias != "" && x.Alias != x.Name {
				s.aliases = satAdd(s.aliases, 1, maxAliases)
			}
			if x.Name == "__schema" || x.Name == "__type" {
				s.introDepth = 1 + max(child.depth, child.introDepth)
			} else {
				s.depth = 1 + child.depth
				if child.introDepth > 0 {
					s.introDepth = 1 + child.introDepth
				}
			}
		case *ast.InlineFragment:
			w.args(nil, x.Directives)
			s = w.set(x.SelectionSet)
		case *ast.FragmentSpread:
			w.args(nil, x.Directives)
			s = w.fragment(x.Name)
		}
		out.depth = max(out.depth, s.depth)
		out.introDepth = max(out.introDepth, s.introDepth)
		out.aliases = satAdd(out.aliases, s.aliases, maxAliases)
		out.fields = satAdd(out.fields, s.fields, maxFields)
	}
	return out
}

func (w *shapeWalk) fragment(name string) shape {
	if f, ok := w.frags[name]; ok {
		return f.shape // a cycle's second visit counts nothing
	}
	def := w.doc.Fragments.ForName(name)
	if def == nil {
		return shape{}
	}
	f := &fragShape{busy: true}
	w.frags[name] = f
	w.args(nil, def.Directives)
	f.shape = w.set(def.SelectionSet)
	f.busy = false
	return f.shape
}

func (w *shapeWalk) values(vars ast.VariableDefinitionList, dirs ast.DirectiveList) {
	for _, v := range vars {
		w.value(v.DefaultValue, 0)
		w.args(nil, v.Directives)
	}
	w.args(nil, dirs)
}

func (w *shapeWalk) args(args ast.ArgumentList, dirs ast.DirectiveList) {
	for _, a := range args {
		w.value(a.Value, 0)
	}
	for _, d := range dirs {
		for _, a := range d.Arguments {
			w.value(a.Value, 0)
		}
	}
}

// value checks the nesting of a literal; the parser has already bounded
// its size by the token limit.
func (w *shapeWalk) value(v *ast.Value, depth int) {
	if v == nil || w.err != nil {
		return
	}
	if depth > maxValueDepth {
		w.err = limitError("a value nests lists or objects deeper than %d", maxValueDepth)
		return
	}
	for _, c := range v.Children {
		if !w.tick() {
			return
		}
		w.value(c.Value, depth+1)
	}
}

// satAdd adds counts, stopping just past the limit so that fragments
// spread exponentially many times cannot overflow.
func satAdd(a, b, limit int) int {
	if a > limit || b > limit || a+b > limit {
		return limit + 1
	}
	return a + b
}
