package server

import (
	"encoding/json"
	"io"
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
		body["id"] = requestRPCID(r)
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

// rpcIDPeek bounds what an error raised before the handler (a missing key,
// a rate limit) reads of a JSON-RPC body to find the id it must echo.
const rpcIDPeek = 64 << 10

// requestRPCID is the "id" of a JSON-RPC request that no handler has read
// yet, so that clients matching answers by id (JSON-RPC 2.0, 5) can tell
// which call was refused. A batch, an unreadable body or one past
// rpcIDPeek gives null, as the spec says for an id that cannot be known.
func requestRPCID(r *http.Request) json.RawMessage {
	if r == nil || r.Body == nil || r.Method != http.MethodPost {
		return json.RawMessage("null")
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.NewDecoder(io.LimitReader(r.Body, rpcIDPeek)).Decode(&req) != nil || len(req.ID) == 0 {
		return json.RawMessage("null")
	}
	return req.ID // as the handler echoes it: raw, in its own JSON type
}
