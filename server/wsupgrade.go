package server

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/tonql/tonql/apperr"
)

// refuseBadUpgrades answers a GET on /graphql that asks for an upgrade the
// websocket transport would refuse, before it gets there: gqlgen's
// transport answers a failed upgrade with gorilla's "Bad Request" and a
// second body of its own, and logs it through the standard logger outside
// the request log and its sampling. Here the client gets one GraphQL error
// (400, BAD_REQUEST) that says which part of the handshake was wrong
// (RFC 6455 4.2.1: what a websocket server checks), or 403 (FORBIDDEN) for
// an origin outside CORS_ORIGINS, and the request is logged like any other
// refused request.
func refuseBadUpgrades(origins Origins, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Upgrade") != "" {
			if reason := upgradeProblem(r); reason != "" {
				writeRouteError(w, r, "/graphql", apperr.New(apperr.BadRequest,
					"websocket upgrade refused: %s (GraphQL subscriptions: graphql-transport-ws over a websocket on this URL)", reason))
				return
			}
			if !origins.Allows(r.Header.Get("Origin")) {
				// 403 as websocket servers answer it (RFC 6455 4.2.2): the
				// handshake is fine, the page's origin is not let in.
				writeJSONStatus(w, http.StatusForbidden, map[string]any{"errors": []map[string]any{{
					"message":    "websocket upgrade refused: this origin is not in the server's CORS_ORIGINS",
					"extensions": map[string]any{"code": "FORBIDDEN"}}}})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// upgradeProblem is why the websocket handshake r cannot succeed; "" when
// it can.
func upgradeProblem(r *http.Request) string {
	h := r.Header
	switch {
	case !hasToken(h, "Upgrade", "websocket"):
		return "the Upgrade header must name websocket"
	case !hasToken(h, "Connection", "upgrade"):
		return "the Connection header must hold the upgrade token"
	case h.Get("Sec-Websocket-Version") != "13":
		return "the Sec-WebSocket-Version header must be 13"
	case !validWebsocketKey(h.Get("Sec-Websocket-Key")):
		return "the Sec-WebSocket-Key header must be 16 bytes in base64"
	}
	return ""
}

// hasToken tells whether a comma-separated header holds token (any case).
func hasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func validWebsocketKey(k string) bool {
	b, err := base64.StdEncoding.DecodeString(k)
	return err == nil && len(b) == 16
}
