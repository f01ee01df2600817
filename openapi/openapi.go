// Package openapi holds the OpenAPI 3 document of the REST, JSON-RPC and
// operations routes and serves it, with a page that renders it, from the
// binary (no network needed). openapi.yaml is the source; openapi.json is
// generated from it and embedded.
package openapi

import (
	_ "embed"
	"net/http"
)

//go:generate go run ./internal/gen

// JSON is the document as served at /api/openapi.json.
//
//go:embed openapi.json
var JSON []byte

//go:embed docs.html
var docsPage []byte

// Paths of the two routes, which never need an API key.
const (
	DocumentPath = "/api/openapi.json"
	DocsPath     = "/api/docs"
)

// Document serves the JSON document.
func Document() http.Handler { return static("application/json", JSON) }

// Docs serves the page that renders the document: one HTML file with its
// script inline, which fetches openapi.json relative to itself, so it
// works bare and under /{api_key}/.
func Docs() http.Handler { return static("text/html; charset=utf-8", docsPage) }

func static(contentType string, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	})
}
