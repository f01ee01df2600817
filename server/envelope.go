package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/rest"
)

// routeFamily is the error shape a path's clients expect. Errors raised
// before a handler runs (auth, rate limit, body size, panics) must look
// exactly like the handler's own errors, or clients such as TonClient fail
// to parse them.
type routeFamily int

const (
	familyV3      routeFamily = iota // {"error":"...","code":N}
	familyV2                         // {"ok":false,"error":"...","code":N}
	familyJSONRPC                    // v2 plus "jsonrpc":"2.0","id":null
	familyGraphQL                    // {"errors":[{"message":"...","extensions":{"code":"..."}}],"data":null}
)

// familyOf classifies a path with any key segment already removed.
func familyOf(path string) routeFamily {
	switch {
	case path == "/graphql":
		return familyGraphQL
	case path == "/api/v2/jsonRPC":
		return familyJSONRPC
	case strings.HasPrefix(path, "/api/v2/"):
		return familyV2
	}
	return familyV3
}

// writeRouteError writes err, classified through apperr, in the shape of
// the route at path.
func writeRouteError(w http.ResponseWriter, r *http.Request, path string, err error) {
	switch familyOf(path) {
	case familyV2:
		rest.WriteError(w, r, rest.V2, err)
	case familyV3:
		rest.WriteError(w, r, rest.V3, err)
	case familyJSONRPC:
		e := apperr.From(err)
		body := rest.ErrorBody(rest.V2, e)
		body["jsonrpc"] = "2.0"
		body["id"] = nil // the request was not read, so its id is unknown
		writeJSONStatus(w, e.Kind.Info().HTTPStatus, body)
	case familyGraphQL:
		e := apperr.From(err)
		writeJSONStatus(w, e.Kind.Info().HTTPStatus, map[string]any{
			"errors": []map[string]any{{"message": e.Public(), "extensions": map[string]any{"code": e.Kind.Info().GQLCode}}},
			"data":   nil,
		})
	}
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v) // maps of strings and numbers always marshal
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
