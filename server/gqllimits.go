package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// GraphQL limits. Every one is checked before the work it bounds: the size
// and token count before parsing, the shape of the parsed document (depth,
// aliases, fields with fragments expanded, nesting of literal values, and
// the work of gqlparser's field-merging rule, which is quadratic) before
// gqlgen validates it, and the complexity, which depends on the variables,
// before anything runs. The walks below visit each fragment once
// (memoized), so a document whose fragments spread each other twice costs
// its size, not 2^depth.
const (
	maxQueryBytes  = 64 << 10
	maxQueryTokens = 10_000
	maxComplexity  = 50_000
	maxDepth       = 10
	// Introspection as GraphiQL sends it nests ofType nine deep (depth
	// 13); gqlparser's MaxIntrospectionDepth rule bounds its lists and its
	// resolvers read the schema in memory.
	maxIntrospectionDepth = 20
	maxAliases            = 30
	// maxFields counts fields with fragments expanded: what execution
	// would visit per object.
	maxFields = 10_000
	// maxValueDepth bounds the nesting of list and object literals; the
	// filters need two levels.
	maxValueDepth = 16
	// maxMergeWork bounds the field pairs gqlparser's
	// OverlappingFieldsCanBeMerged rule would compare (see mergeWork),
	// about 0.3 µs each: some 100 ms of CPU at the limit.
	maxMergeWork = 300_000
	// linkListSize is what an action's participants or transactions count
	// for in the complexity: about as many as a swap has.
	linkListSize = 10
	// docCacheBytes bounds the parsed documents kept (estimated memory):
	// some 800 KB of query text, about a thousand typical queries.
	docCacheBytes = 64 << 20
)

// codeTooComplex is the extensions.code of every limit; registered as a
// protocol error so gqlgen answers it with HTTP 422 like a validation error.
const codeTooComplex = "QUERY_TOO_COMPLEX"

var registerCodes sync.Once

func limitError(format string, args ...any) *gqlerror.Error {
	err := &gqlerror.Error{Message: fmt.Sprintf(format, args...)}
	errcode.Set(err, codeTooComplex)
	return err
}

// limits is the gqlgen extension that enforces the limits above.
type limits struct {
	es    graphql.ExecutableSchema
	cache *docCache
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
} = (*limits)(nil)

func (*limits) ExtensionName() string { return "Limits" }

func (l *limits) Validate(es graphql.ExecutableSchema) error {
	l.es = es
	registerCodes.Do(func() { errcode.RegisterErrorType(codeTooComplex, errcode.KindProtocol) })
	return nil
}

// MutateOperationParameters runs before gqlgen parses and validates the
// document. A document in the cache has passed these checks before.
func (l *limits) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if err := ctx.Err(); err != nil {
		return timeoutError()
	}
	if l.cache.has(p.Query) {
		return nil
	}
	if len(p.Query) > maxQueryBytes {
		return limitError("query is %d bytes; the limit is %d", len(p.Query), maxQueryBytes)
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, maxQueryTokens)
	if err != nil {
		if gqlErr, ok := err.(*gqlerror.Error); ok {
			errcode.Set(gqlErr, errcode.ParseFailed)
			return gqlErr
		}
		return limitError("query could not be parsed")
	}
	s := newShapeWalk(ctx, doc)
	return s.check()
}

// MutateOperationContext runs after validation, with the variables known.
func (l *limits) MutateOperationContext(ctx context.Context, op *graphql.OperationContext) *gqlerror.Error {
	if op.Operation == nil {
		return nil
	}
	c, ok := l.cache.cost(op.RawQuery, op.Operation)
	if !ok {
		var fixed bool
		c, fixed = complexityOf(ctx, l.es, op, maxComplexity)
		if ctx.Err() != nil {
			return timeoutError()
		}
		if fixed {
			l.cache.setCost(op.RawQuery, op.Operation, c)
		}
	}
	if c > maxComplexity {
		return limitError("operation's complexity exceeds the limit of %d (every field counts 1, a list times its page size)", maxComplexity)
	}
	return nil
}

func timeoutError() *gqlerror.Error {
	return &gqlerror.Error{Message: "request timed out", Extensions: map[string]any{"code": "TIMEOUT"}}
}
