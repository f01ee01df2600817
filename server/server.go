// Package server assembles the HTTP surface: GraphQL, the explorer page and
// the REST routes, behind the common middleware.
package server

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/explorer"
	"github.com/tonql/tonql/openapi"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/rest"
)

// MaxBodyBytes bounds every request body (413 above 1 MiB; the OpenAPI document says so).
const MaxBodyBytes = 1 << 20

// Options configure the handler. Only Resolver is required.
type Options struct {
	Resolver *resolvers.Resolver
	// Access enables personal endpoints /{api_key}/...; nil serves bare
	// routes only.
	Access *Access
	// RequestTimeout bounds each request's context; 0 means none.
	RequestTimeout time.Duration
	// Logger gets one line per request; nil means slog.Default().
	Logger *slog.Logger
	// AccessLog sets the level and sampling of those lines.
	AccessLog AccessLog
	// Ready lists the dependencies /readyz pings.
	Ready   []ReadyCheck
	Metrics MetricsSources
	// Origins may call the API from a browser (CORS_ORIGINS); the zero
	// value allows any.
	Origins Origins
	// Cost sets the request budget of the cost model (cost package).
	Cost cost.Limits
	// StreamHeartbeat is how often idle SSE streams send a comment; 0 means
	// rest.DefaultHeartbeat.
	StreamHeartbeat time.Duration
}

// New returns the root handler. Middleware, outermost first: canonical
// paths, security headers, request id, log line and metrics, panic recovery, key check/rate limit/metering,
// cost budget, request timeout, body limit.
func New(o Options) http.Handler {
	mux := newRouter()
	q := o.Resolver.Query()
	gql, docs := newGraphQL(o.Resolver, o.Origins)
	m := newMetrics(o.Metrics)
	m.addSources(o, docs)
	mux.handle("/graphql", refuseBadUpgrades(o.Origins, gql))
	mux.handle("/api/v3/actions", rest.Actions(q))
	mux.handle(streamPath, rest.ActionsStream(o.Resolver, o.StreamHeartbeat))
	mux.handle(rest.ToncenterStreamPath, rest.ToncenterStream(o.Resolver, o.StreamHeartbeat))
	mux.handle(rest.ToncenterSocketPath, rest.ToncenterSocket(o.Resolver,
		func(r *http.Request) bool { return o.Origins.Allows(r.Header.Get("Origin")) }, o.StreamHeartbeat))
	mux.handle("/api/v2/estimateFee", rest.EstimateFee(q))
	mux.handle("/api/v2/jsonRPC", rest.JSONRPC(o.Resolver))
	for path, h := range rest.Routes(o.Resolver) {
		mux.handle(path, h)
		if rest.ToncenterPath(path) {
			mux.handle(rest.ToncenterPrefix+path, h)
		}
	}
	mux.handle(rest.ToncenterPrefix+"/api/v3/actions", rest.ToncenterActions(o.Resolver))
	mux.handle("/api/v3/pendingActions", rest.PendingActions(o.Resolver, false))
	mux.handle(rest.ToncenterPrefix+"/api/v3/pendingActions", rest.PendingActions(o.Resolver, true))
	mux.handle("GET /{$}", explorer.Page())
	mux.handle("GET "+explorer.AssetPrefix, explorer.Assets())
	mux.handle("/healthz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest.WriteJSON(w, map[string]string{"status": "ok"})
	}))
	mux.handle("/readyz", ready(o.Ready))
	mux.handle("GET /robots.txt", http.HandlerFunc(robots))
	mux.handle("GET /favicon.ico", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	mux.handle("GET /metrics", m)
	mux.handle("GET "+openapi.DocumentPath, openapi.Document())
	mux.handle("GET "+openapi.DocsPath, openapi.Docs())
	mux.handle("/", http.HandlerFunc(writeNotFound))
	m.setRoutes(mux)
	var h http.Handler = limitBody(mux)
	h = withTimeout(o.RequestTimeout, h)
	h = withBudget(o.Cost, h)
	if o.Access != nil {
		h = o.Access.guard(h, mux)
	}
	h = cors(o.Origins, h)
	h = recoverer(h)
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	return canonical(secureHeaders(requestID(observe(log, o.AccessLog, m, h))))
}

// robots keeps crawlers off every path: under a personal endpoint a
// crawled URL would publish the key.
func robots(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("User-agent: *\nDisallow: /\n"))
}
