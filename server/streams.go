package server

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/internal/netconn"
	"github.com/tonql/tonql/rest"
	"github.com/tonql/tonql/store"
)

// Streams (GET /api/v3/actions/stream, GraphQL subscriptions over a
// websocket on /graphql) are long requests. Each is admitted like any
// request (key, rate limit, one request unit) when it opens; then the
// request timeout does not apply to it, and what it may hold is bounded by
// the notify hub (streams per key and per server; a revoked key's streams
// end). Operations sent over an open websocket are admitted one by one,
// as requests would be: a subscription counts one unit when it starts.

// ConnContext is what an http.Server serving this handler sets as its
// ConnContext: a stream shrinks its connection's send buffer, so a client
// that reads nothing makes the server encode little for it.
func ConnContext(ctx context.Context, c net.Conn) context.Context { return netconn.ConnContext(ctx, c) }

// streamPath is the SSE route.
const streamPath = "/api/v3/actions/stream"

// isStream tells requests that stay open: no request timeout for them.
func isStream(r *http.Request) bool {
	return r.URL.Path == streamPath || r.URL.Path == rest.ToncenterStreamPath || r.URL.Path == rest.ToncenterSocketPath || r.URL.Path == "/graphql" && websocket.IsWebSocketUpgrade(r)
}

// admit applies a key's rate limit to one request or operation and counts
// its unit. retryAfter is set when it is refused for the rate.
func (a *Access) admit(k *store.APIKey) (retryAfter time.Duration, err error) {
	if wait, err := a.take(k); err != nil {
		return wait, err
	}
	if a.Meter != nil {
		a.Meter.Count(k.ID)
	}
	return 0, nil
}

// take takes the key's rate-limit token of a request; its unit is counted
// when the answer is known (countUnit).
func (a *Access) take(k *store.APIKey) (retryAfter time.Duration, err error) {
	if a.Limiter != nil {
		if ok, wait := a.Limiter.Allow(k.ID, a.limitOf(k)); !ok {
			return wait, apperr.New(apperr.RateLimited,
				"rate limit exceeded: %s; retry after %s", describeLimit(a.limitOf(k)), wait.Round(time.Millisecond))
		}
	}
	return 0, nil
}

func retryAfterHeader(w http.ResponseWriter, wait time.Duration) {
	// Whole seconds; never tell a client "0".
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
}

// keyed is what an accepted keyed request carries for later admissions.
type keyed struct {
	access *Access
	key    string
}

type keyedContext struct{}

// withKey records the accepted key: its id for the stream limits
// (apikey.KeyID) and the key itself, so operations over a websocket are
// checked again (a revoked key's next operation is refused).
func withKey(r *http.Request, a *Access, key string, k *store.APIKey) *http.Request {
	ctx := apikey.WithKeyID(r.Context(), k.ID)
	return r.WithContext(context.WithValue(ctx, keyedContext{}, &keyed{access: a, key: key}))
}

type socketContext struct{}

// websocketTransport serves graphql-transport-ws (graphql-ws clients) and
// the older graphql-ws protocol. Keys come in the URL (/{key}/graphql or
// ?api_key=, as browsers' websockets can send no headers), so no cookie or
// other ambient credential is involved: origins are checked only against
// CORS_ORIGINS, the same list that lets pages read our HTTP answers.
func websocketTransport(origins Origins) transport.Websocket {
	return transport.Websocket{
		Upgrader: websocket.Upgrader{CheckOrigin: func(r *http.Request) bool {
			return origins.Allows(r.Header.Get("Origin"))
		}},
		InitTimeout: 10 * time.Second,
		InitFunc: func(ctx context.Context, _ transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			return context.WithValue(ctx, socketContext{}, true), nil, nil
		},
		// Pings find dead peers (their streams' places are freed); both
		// protocols' clients answer them by themselves.
		KeepAlivePingInterval: 15 * time.Second,
		PingPongInterval:      15 * time.Second,
	}
}

// addSubscriptions lets srv serve subscriptions over websockets, each
// operation on a socket admitted as a request.
func addSubscriptions(srv *handler.Server, origins Origins) {
	srv.AddTransport(websocketTransport(origins))
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		op := graphql.GetOperationContext(ctx)
		subscription := op.Operation != nil && op.Operation.Operation == ast.Subscription
		if on, _ := ctx.Value(socketContext{}).(bool); !on {
			if subscription {
				// Over POST a subscription would hold the request until its
				// first event and then drop the rest.
				return operationError(apperr.New(apperr.BadRequest,
					"subscriptions are served over a websocket on /graphql (graphql-transport-ws); or use GET /api/v3/actions/stream"))
			}
			return next(ctx)
		}
		if err := admitOperation(ctx); err != nil {
			return operationError(err)
		}
		if !subscription {
			// A query or mutation over a socket gets no more time than over HTTP.
			if d := requestTimeoutOf(ctx); d > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, d)
				h := next(ctx)
				return func(ctx context.Context) *graphql.Response {
					defer cancel()
					return h(ctx)
				}
			}
		}
		return next(ctx)
	})
}

// admitOperation checks the key of the socket again and applies its rate
// limit and unit to one operation.
func admitOperation(ctx context.Context) error {
	kd, ok := ctx.Value(keyedContext{}).(*keyed)
	if !ok {
		return nil // a bare route: nothing to count
	}
	k, err := kd.access.Keys.Find(ctx, kd.key)
	if err != nil {
		return err
	}
	if k == nil {
		return errNoKey()
	}
	_, err = kd.access.admit(k)
	return err
}

type timeoutContext struct{}

// requestTimeoutOf is the REQUEST_TIMEOUT the stream was opened under.
func requestTimeoutOf(ctx context.Context) time.Duration {
	d, _ := ctx.Value(timeoutContext{}).(time.Duration)
	return d
}

// operationError answers an operation with err, classified as resolvers'
// errors are (message and extensions.code).
func operationError(err error) graphql.ResponseHandler {
	e := apperr.From(err)
	return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{{Message: e.Public(),
		Extensions: map[string]any{"code": e.Kind.Info().GQLCode}}}})
}
