// Package rest serves the documented toncenter-compatible routes. Handlers
// parse HTTP input and call the same resolvers GraphQL uses; they never
// touch the store.
package rest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cost"
)

// Envelope selects the error shape of a route family (docs/API-NOTES.md).
type Envelope int

const (
	V2 Envelope = iota // {"ok":false,"error":"...","code":N}
	V3                 // {"error":"...","code":N}
)

// WriteJSON writes v with status 200.
func WriteJSON(w http.ResponseWriter, v any) {
	writeJSON(w, http.StatusOK, v)
}

// appender is a response that encodes itself faster than json.Marshal,
// to the same bytes (a page of actions).
type appender interface {
	AppendJSON([]byte) ([]byte, error)
}

// pageBuffers are reused for pages written with AppendJSON (a page is
// tens of KB; allocating it per request fed the GC most of its work).
var pageBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

func writeJSON(w http.ResponseWriter, status int, v any) {
	encodeJSON(v, func(b []byte, err error) {
		if err != nil {
			status, b = http.StatusInternalServerError, []byte(`{"error":"internal error","code":500}`)
		}
		writeBody(w, status, b)
	})
}

// writeBounded writes v with status 200 when its JSON is within the
// answer's byte bound (cost.Bytes), else that error in the envelope.
func writeBounded(w http.ResponseWriter, r *http.Request, env Envelope, v any) {
	encodeJSON(v, func(b []byte, err error) {
		if err == nil {
			err = cost.Bytes(len(b))
		}
		if err != nil {
			WriteError(w, r, env, err)
			return
		}
		writeBody(w, http.StatusOK, b)
	})
}

// encodeJSON hands v's JSON to use; the bytes are reused after it returns.
func encodeJSON(v any, use func([]byte, error)) {
	a, ok := v.(appender)
	if !ok {
		b, err := json.Marshal(v)
		use(b, err)
		return
	}
	buf := pageBuffers.Get().(*[]byte)
	b, err := a.AppendJSON((*buf)[:0])
	use(b, err)
	if cap(b) <= 1<<20 { // a huge page is not kept
		*buf = b[:0]
		pageBuffers.Put(buf)
	}
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	// The whole body is at hand: its length spares net/http the chunked
	// encoding (and the client its parsing).
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// WriteError maps err through the apperr table and writes it in the
// route's envelope. Internal errors are logged with detail and shown as
// "internal error".
func WriteError(w http.ResponseWriter, r *http.Request, env Envelope, err error) {
	e := apperr.From(err)
	status := e.Kind.Info().HTTPStatus
	switch {
	case errors.Is(r.Context().Err(), context.Canceled):
		// The client went away mid-request: nothing failed on our side.
		slog.DebugContext(r.Context(), "client went away", "path", apikey.Redact(r.URL.Path), "err", err)
	case e.Kind == apperr.Internal:
		slog.ErrorContext(r.Context(), "internal error", "path", apikey.Redact(r.URL.Path), "err", err)
	case e.Cause != nil:
		slog.WarnContext(r.Context(), "request failed", "path", apikey.Redact(r.URL.Path), "kind", e.Kind.Info().GQLCode, "err", err)
	}
	writeJSON(w, status, ErrorBody(env, e))
}

// WriteErrorLog logs an internal error of a request whose answer is
// written elsewhere (a JSON-RPC batch element).
func WriteErrorLog(r *http.Request, err error) {
	slog.ErrorContext(r.Context(), "internal error", "path", apikey.Redact(r.URL.Path), "err", err)
}

// ErrorBody is the JSON object of an error in the route's envelope.
func ErrorBody(env Envelope, e *apperr.Error) map[string]any {
	body := map[string]any{"error": e.Public(), "code": e.Kind.Info().HTTPStatus}
	if env == V2 {
		body["ok"] = false
	}
	return body
}
