package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/resolvers"
)

// NewGraphQL builds the /graphql handler: POST and GET, introspection on,
// the limits of gqllimits.go, a query cache bounded in bytes, and errors
// mapped through apperr (gqlerrors.go).
func NewGraphQL(res *resolvers.Resolver, origins Origins) http.Handler {
	h, _ := newGraphQL(res, origins)
	return h
}

// newGraphQL is NewGraphQL that also returns its query cache, for /metrics.
func newGraphQL(res *resolvers.Resolver, origins Origins) (http.Handler, *docCache) {
	return newGraphQLWith(res, origins, postTransport{})
}

// newGraphQLWith is newGraphQL with the given POST transport (tests
// compare ours with gqlgen's).
func newGraphQLWith(res *resolvers.Resolver, origins Origins, post graphql.Transport) (http.Handler, *docCache) {
	cfg := graph.Config{Resolvers: res}
	es := graph.NewExecutableSchema(cfg)
	srv := handler.New(es)
	// No field middleware (AroundFields) here: fields that read a scalar
	// from a struct skip it (cmd/gqlleaf), so one would see only some fields.
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		return next(res.WithLoaders(ctx))
	})
	// The root fields that are requests of their own (cost.GraphQLItem)
	// are admitted one by one before they run: a token each after the
	// first, a unit each unless the server failed it, and none once the
	// request's work budget is spent.
	srv.AroundRootFields(func(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
		f := graphql.GetRootFieldContext(ctx).Field
		if !cost.GraphQLItem(f.Name) {
			return next(ctx)
		}
		done, err := cost.Item(ctx)
		if err != nil {
			graphql.AddError(ctx, &gqlerror.Error{Err: err, Message: err.Error(), Path: ast.Path{ast.PathName(f.Alias)}})
			return graphql.Null
		}
		out := next(ctx)
		done(rootFieldError(ctx, f.Alias))
		return out
	})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(post)
	addSubscriptions(srv, origins) // streams.go
	cache := newDocCache(docCacheBytes)
	srv.SetQueryCache(cache)
	srv.SetParserTokenLimit(maxQueryTokens)
	srv.Use(extension.Introspection{})
	srv.Use(&limits{cache: cache})
	srv.SetErrorPresenter(presenter(es.Schema()))
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		slog.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(v))
		return apperr.New(apperr.Internal, "internal error")
	})
	return srv, cache
}

// rootFieldError is an error of the root field at alias that the server
// failed to answer (a 5xx kind), or nil: its unit is not charged.
func rootFieldError(ctx context.Context, alias string) error {
	for _, e := range graphql.GetErrors(ctx) {
		if len(e.Path) == 0 || e.Path[0] != ast.PathName(alias) {
			continue
		}
		if code, _ := e.Extensions["code"].(string); apperr.ServerFailed(code) {
			return apperr.New(apperr.KindOfCode(code), "%s", e.Message)
		}
	}
	return nil
}
