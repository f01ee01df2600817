package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/internal/reqid"
	"github.com/tonql/tonql/rest"
)

// envelopeFor picks the error shape clients of a path expect.
func envelopeFor(path string) rest.Envelope {
	if strings.Contains(path, "/api/v2/") {
		return rest.V2
	}
	return rest.V3
}

func writeNotFound(w http.ResponseWriter, r *http.Request) {
	rest.WriteError(w, r, envelopeFor(r.URL.Path), apperr.New(apperr.NotFound, "no route %s", r.URL.Path))
}

// recoverer turns a panic into a logged 500 in the route's envelope; the
// server keeps serving.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				slog.ErrorContext(r.Context(), "panic", "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				rest.WriteError(w, r, envelopeFor(r.URL.Path), apperr.New(apperr.Internal, "internal error"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps request bodies; handlers that read past the cap get an
// error they report as 413.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			rest.WriteError(w, r, envelopeFor(r.URL.Path), apperr.New(apperr.TooLarge, "request body over %d bytes", MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// requestID gives every request an id (or keeps a sane one the client
// sent), returns it as X-Request-Id and puts it in the context for logs and
// v2's "@extra".
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneID(id) {
			id = reqid.New()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(reqid.With(r.Context(), id)))
	})
}

func saneID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
