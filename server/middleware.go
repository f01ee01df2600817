package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/internal/reqid"
)

func writeNotFound(w http.ResponseWriter, r *http.Request) {
	writeRouteError(w, r, r.URL.Path, apperr.New(apperr.NotFound, "no route %s", r.URL.Path))
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
				slog.ErrorContext(r.Context(), "panic", "path", logPath(r.URL.Path), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				_, path, _ := splitKey(r.URL.Path)
				writeRouteError(w, r, path, apperr.New(apperr.Internal, "internal error"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps request bodies; REST handlers that read past the cap get
// an error they report as 413. gqlgen would report an oversized body of
// unknown length as a 400 decoding error, so /graphql bodies are read here
// (they are small) to answer 413 in GraphQL's shape, and checked for the
// shape gqlgen's transport expects (checkGraphQLBody).
func limitBody(next http.Handler) http.Handler {
	// Made when needed: formatting it cost every request an allocation.
	tooLarge := func() error { return apperr.New(apperr.TooLarge, "request body over %d bytes", MaxBodyBytes) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			writeRouteError(w, r, r.URL.Path, tooLarge())
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		if r.URL.Path == "/graphql" {
			if err := checkGraphQLMethod(w, r); err != nil {
				writeRouteError(w, r, r.URL.Path, err)
				return
			}
		}
		if r.URL.Path == "/graphql" && r.Method == http.MethodPost {
			raw, err := io.ReadAll(r.Body)
			var mbe *http.MaxBytesError
			switch {
			case errors.As(err, &mbe):
				writeRouteError(w, r, r.URL.Path, tooLarge())
				return
			case err != nil:
				writeRouteError(w, r, r.URL.Path, apperr.Wrap(apperr.BadRequest, err, "could not read the request body"))
				return
			}
			body, err := checkGraphQLBody(raw)
			if err != nil {
				writeRouteError(w, r, r.URL.Path, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
			r = r.WithContext(context.WithValue(r.Context(), graphQLBodyKey{}, body))
		}
		next.ServeHTTP(w, r)
	})
}

// withTimeout bounds the work of one request; handlers see the deadline
// through the context and answer 504 (apperr maps DeadlineExceeded).
func withTimeout(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isStream(r) { // open until the client or the stream ends (streams.go)
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), timeoutContext{}, d)))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
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
