package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/resolvers"
)

// GraphQL limits. A query's complexity counts every selected field, with a
// list multiplied by its page size, so one request cannot ask for more than
// a few pages' worth of work.
const (
	maxComplexity = 50_000
	maxDepth      = 10
	maxAliases    = 30
	// linkListSize is what an action's participants or transactions count
	// for in the complexity: about as many as a swap has.
	linkListSize = 10
)

// NewGraphQL builds the /graphql handler: POST and GET, introspection on,
// complexity/depth/alias limits, and errors mapped through apperr.
func NewGraphQL(res *resolvers.Resolver) http.Handler {
	cfg := graph.Config{Resolvers: res}
	cfg.Complexity.Query.Actions = func(child int, _ *model.ActionFilter, limit *int, _ *int, _ *model.SortOrder) int {
		n := resolvers.DefaultActionsLimit
		if limit != nil && *limit > 0 {
			n = *limit
		}
		return 1 + n*child
	}
	cfg.Complexity.Account.Actions = func(child int, _ *model.AccountActionFilter, first *int, _ *string, _ *model.SortOrder) int {
		n := resolvers.DefaultActionsLimit
		if first != nil && *first > 0 {
			n = *first
		}
		return 1 + n*child
	}
	// An action's links are short lists; counted as typical sizes.
	cfg.Complexity.Action.Participants = func(child int) int { return 1 + linkListSize*child }
	cfg.Complexity.Action.TransactionsFull = func(child int) int { return 1 + linkListSize*child }
	srv := handler.New(graph.NewExecutableSchema(cfg))
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		return next(res.WithLoaders(ctx))
	})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	addSubscriptions(srv) // streams.go
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.FixedComplexityLimit(maxComplexity))
	srv.Use(shapeLimit{})
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		slog.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(v))
		return apperr.New(apperr.Internal, "internal error")
	})
	return srv
}

// presentError gives every resolver error its extensions.code and a
// client-safe message; gqlgen's own parse/validation errors pass through.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	var gqlErr *gqlerror.Error
	if errors.As(err, &gqlErr) && gqlErr.Err == nil {
		return gqlErr
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

// shapeLimit rejects operations nested too deep or with too many aliases
// (aliases let one request repeat an expensive field many times).
type shapeLimit struct{}

func (shapeLimit) ExtensionName() string                   { return "ShapeLimit" }
func (shapeLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (shapeLimit) MutateOperationContext(_ context.Context, op *graphql.OperationContext) *gqlerror.Error {
	if op.Operation == nil {
		return nil
	}
	aliases := 0
	depth := selectionDepth(op.Operation.SelectionSet, op.Doc.Fragments, &aliases, 0)
	if depth > maxDepth {
		return limitError(fmt.Sprintf("query depth %d exceeds the limit of %d", depth, maxDepth))
	}
	if aliases > maxAliases {
		return limitError(fmt.Sprintf("query uses %d aliases; the limit is %d", aliases, maxAliases))
	}
	return nil
}

func limitError(msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": "QUERY_TOO_COMPLEX"}}
}

func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, aliases *int, level int) int {
	if level > maxDepth+1 { // deep enough to reject; also stops fragment cycles
		return level
	}
	deepest := level
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if s.Alias != "" && s.Alias != s.Name {
				*aliases++
			}
			d = level + 1
			if len(s.SelectionSet) > 0 {
				d = selectionDepth(s.SelectionSet, frags, aliases, level+1)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, aliases, level)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, aliases, level)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
