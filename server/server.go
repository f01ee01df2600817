// Package server assembles the HTTP surface: GraphQL, the GraphiQL page and
// the REST routes, behind the common middleware.
package server

import (
	"net/http"

	"github.com/99designs/gqlgen/graphql/playground"

	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/rest"
)

// MaxBodyBytes bounds every request body (API.md: 413 above 1 MiB).
const MaxBodyBytes = 1 << 20

// Options configure the handler.
type Options struct {
	Resolver *resolvers.Resolver
}

// New returns the root handler.
func New(o Options) http.Handler {
	mux := http.NewServeMux()
	q := o.Resolver.Query()
	mux.Handle("/graphql", NewGraphQL(o.Resolver))
	mux.Handle("/api/v3/actions", rest.Actions(q))
	mux.Handle("/api/v2/estimateFee", rest.EstimateFee(q))
	mux.Handle("/api/v2/jsonRPC", rest.JSONRPC(q))
	mux.Handle("GET /{$}", playground.Handler("tonql GraphQL", "graphql"))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		rest.WriteJSON(w, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeNotFound(w, r)
	})
	return requestID(recoverer(limitBody(mux)))
}
