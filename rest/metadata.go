package rest

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
)

// MetadataOf renders stored token metadata in toncenter's shape
// (chain.MetadataOf).
func MetadataOf(tokens map[string]chain.TokenMetadata) chain.Metadata {
	return chain.MetadataOf(tokens)
}

// metadataParams are the query parameters /api/v3/metadata takes (the key
// parameter is taken out before routes see the URL).
var metadataParams = map[string]bool{"address": true}

// MetadataRoute serves GET /api/v3/metadata?address=...: toncenter's
// route, each address given as its own parameter (or comma-separated),
// at most 1024. It reads what the metadata worker stored and never waits
// for a fetch.
func MetadataRoute(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET", r.Method))
			return
		}
		q := r.URL.Query()
		if err := onlyParams(q, metadataParams); err != nil {
			WriteError(w, r, V3, err)
			return
		}
		tokens, err := res.TokenMetadata(r.Context(), splitList(q["address"]))
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		writeBounded(w, r, V3, MetadataOf(tokens))
	}
}

// onlyParams refuses a query parameter the route does not take: silently
// ignoring it would answer another question than the one asked.
func onlyParams(q url.Values, known map[string]bool) error {
	for name := range q {
		if !known[name] {
			return apperr.Field(name, "is not a parameter of this route")
		}
	}
	return nil
}

// splitList reads a repeated parameter whose values may also be
// comma-separated; empty items are dropped.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
