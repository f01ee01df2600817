package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tonql/tonql/openapi/openapitest"
	"github.com/tonql/tonql/server"
)

// newServer is server.New with every answer a test gets checked against
// the OpenAPI document (checked).
func newServer(tb testing.TB, o server.Options) http.Handler {
	return checked(tb, server.New(o))
}

// checked validates every exchange of a test through h against the
// OpenAPI document: an answer it does not describe, or a request the
// server accepted that it does not allow, fails the test. Benchmarks
// measure the server alone, and fuzz targets wrap their handler with the
// *testing.T of each input (F may not fail inside the target).
func checked(tb testing.TB, h http.Handler) http.Handler {
	if t, ok := tb.(*testing.T); ok {
		return openapitest.Wrap(t, h)
	}
	return h
}

func doRequest(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	h.ServeHTTP(rec, req)
	return rec
}
