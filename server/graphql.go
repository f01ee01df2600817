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

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/internal/reqcost"
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
	// Each estimateFee of an operation after the first is charged like a
	// call of a JSON-RPC batch (a unit and a rate-limit token).
	srv.AroundRootFields(func(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
		if graphql.GetRootFieldContext(ctx).Field.Name == "estimateFee" {
			reqcost.Call(ctx)
		}
		return next(ctx)
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
