package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/resolvers"
)

// maxBatch bounds a JSON-RPC batch: each call may run the emulator.
const maxBatch = 100

// rpcRequest keeps every member raw, so that any JSON object decodes and
// its id can be echoed whatever else is wrong with it.
type rpcRequest struct {
	JSONRPC json.RawMessage `json:"jsonrpc"` // not checked: toncenter's clients vary
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// JSONRPC serves POST /api/v2/jsonRPC: the toncenter envelope plus
// "jsonrpc" and the request's id, echoed with its JSON type, on success and
// on every error. A JSON array is a batch, answered by an array in order.
func JSONRPC(q *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeJSON(w, http.StatusMethodNotAllowed, rpcError(nil,
				apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use POST", r.Method)))
			return
		}
		raw, err := readBody(r)
		if err != nil {
			e := apperr.From(err)
			writeJSON(w, e.Kind.Info().HTTPStatus, rpcError(nil, e))
			return
		}
		// Unmarshal validates as it decodes: no separate validity pass.
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '[' {
			var batch []json.RawMessage
			if json.Unmarshal(raw, &batch) != nil { // any value fits a RawMessage: a syntax error
				e := apperr.New(apperr.BadRequest, "request body is not valid JSON")
				writeJSON(w, e.Kind.Info().HTTPStatus, rpcError(nil, e))
				return
			}
			if len(batch) == 0 || len(batch) > maxBatch {
				e := apperr.Field("batch", "must hold 1 to %d calls", maxBatch)
				writeJSON(w, e.Kind.Info().HTTPStatus, rpcError(nil, e))
				return
			}
			// Every call of a batch is a request of its own: admitted by
			// cost.Item before it runs (a token, a unit, a share of the
			// request's one work budget), in order.
			writeJSON(w, http.StatusOK, callBatch(r, q, batch, cost.MaxAnswerBytes))
			return
		}
		resp, status := call(r, q, raw)
		b, err := json.Marshal(resp)
		if err == nil {
			err = cost.Bytes(len(b))
		}
		if err != nil {
			id, _ := resp["id"].(json.RawMessage)
			e := apperr.From(err)
			writeJSON(w, e.Kind.Info().HTTPStatus, rpcError(id, e))
			return
		}
		writeBody(w, status, b)
	}
}

// callBatch runs a batch's calls in order. Their answers together stay
// within bound bytes (one answer's, cost.MaxAnswerBytes): each is encoded as
// it comes, and once the next would pass the bound it and every later call
// are answered with an error naming the batch instead, without running, so
// a batch of large results (100 getTransactions pages) never holds more
// than one answer's bound in memory.
func callBatch(r *http.Request, q *resolvers.Resolver, batch []json.RawMessage, bound int) []json.RawMessage {
	out := make([]json.RawMessage, len(batch))
	total, full := 0, false
	over := func(id json.RawMessage) json.RawMessage {
		b, _ := json.Marshal(rpcError(id, apperr.Field("batch",
			"the answers of the calls before this one hold %d bytes and an answer holds at most %d: "+
				"send this call and the rest in another request", total, bound)))
		return b
	}
	for i, one := range batch {
		if full {
			var members struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(one, &members)
			out[i] = over(members.ID)
			continue
		}
		resp, _ := call(r, q, one)
		b, err := json.Marshal(resp)
		if full = err != nil || total+len(b) > bound; full {
			id, _ := resp["id"].(json.RawMessage)
			b = over(id)
		} else {
			total += len(b)
		}
		out[i] = b
	}
	return out
}

// call answers one JSON-RPC request and returns it with its HTTP status.
func call(r *http.Request, q *resolvers.Resolver, raw json.RawMessage) (map[string]any, int) {
	// Members by their exact names: JSON-RPC's are case-sensitive, and
	// decoding into the struct would take "Method" or "ID" for them.
	var members map[string]json.RawMessage
	err := json.Unmarshal(raw, &members)
	req := rpcRequest{JSONRPC: members["jsonrpc"], ID: members["id"], Method: members["method"], Params: members["params"]}
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) { // only a whole body can be broken JSON
		e := apperr.New(apperr.BadRequest, "request body is not valid JSON")
		return rpcError(nil, e), e.Kind.Info().HTTPStatus
	}
	if err != nil || raw[0] != '{' { // a number, string, array or null
		e := apperr.Field("request", "must be a JSON-RPC object")
		return rpcError(nil, e), e.Kind.Info().HTTPStatus
	}
	id := req.ID
	fail := func(err error) (map[string]any, int) {
		e := apperr.From(err)
		if e.Kind == apperr.Internal {
			WriteErrorLog(r, err)
		}
		return rpcError(id, e), e.Kind.Info().HTTPStatus
	}
	// Every call is admitted before it runs (the first is the request's
	// own): a batch's calls each take a token and a unit, and share one
	// work budget.
	done, err := cost.Item(r.Context())
	if err != nil {
		return fail(err)
	}
	res, err := dispatch(r, q, req)
	done(err)
	if err != nil {
		return fail(err)
	}
	return map[string]any{"ok": true, "result": res, "jsonrpc": "2.0", "id": rawID(id)}, http.StatusOK
}

// dispatch runs one well-formed JSON-RPC object's method.
func dispatch(r *http.Request, q *resolvers.Resolver, req rpcRequest) (any, error) {
	var method string
	if err := json.Unmarshal(req.Method, &method); err != nil {
		return nil, apperr.Field("method", "must be a string")
	}
	m, ok := rpcMethods[method]
	if !ok {
		return nil, apperr.Field("method", "unknown method %q; supported: %s", apperr.Excerpt(method), methodNames())
	}
	p, err := objectParams(req.Params)
	if err != nil {
		return nil, err
	}
	return m(r, q, p)
}

func rpcError(id json.RawMessage, e *apperr.Error) map[string]any {
	body := ErrorBody(V2, e)
	body["jsonrpc"] = "2.0"
	body["id"] = rawID(id)
	return body
}

// rawID keeps the id's JSON type (number, string, null) exactly.
func rawID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}
