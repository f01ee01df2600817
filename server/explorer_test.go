package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/explorer"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
)

var assetRef = regexp.MustCompile(`(?:src|href)="([^"]+)"`)

// The explorer page under a key, on a server that requires keys, loads its
// files from /explorer/assets/ without the key: they are public, cached
// for good (the name holds the hash), gzipped for browsers that take it,
// never charged to the key, and "explorer" is never read as a key.
func TestExplorerAssetsPublicAndCached(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{require: true})
	m := e.meter()
	h := e.handler(m)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})

	require.Equal(t, http.StatusUnauthorized, doRequest(h, http.MethodGet, "/", "").Code, "bare page needs a key here")
	page := doRequest(h, http.MethodGet, "/"+key+"/", "")
	require.Equal(t, http.StatusOK, page.Code)
	require.Equal(t, "text/html; charset=utf-8", page.Header().Get("Content-Type"))
	refs := assetRef.FindAllStringSubmatch(page.Body.String(), -1)
	require.Len(t, refs, 7, "2 stylesheets, an icon, React, ReactDOM, GraphiQL, explorer.js")

	var plain, zipped int
	for _, ref := range refs {
		u := ref[1]
		require.True(t, strings.HasPrefix(u, explorer.AssetPrefix), "%s is served by us, outside the key", u)
		rec := doRequest(h, http.MethodGet, u, "")
		require.Equal(t, http.StatusOK, rec.Code, u)
		require.Equal(t, "public, max-age=31536000, immutable", rec.Header().Get("Cache-Control"), u)
		require.Empty(t, rec.Header().Get("Content-Encoding"), "no gzip unless asked")
		require.NotContains(t, rec.Header().Get("Content-Type"), "text/plain", u)
		body := rec.Body.Bytes()
		plain += len(body)

		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		zrec := serve(h, req)
		require.Equal(t, http.StatusOK, zrec.Code)
		got := zrec.Body.Bytes()
		zipped += len(got)
		if zrec.Header().Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(got))
			require.NoError(t, err)
			got, err = io.ReadAll(zr)
			require.NoError(t, err)
		}
		require.Equal(t, body, got, u)

		req, _ = http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
		require.Equal(t, http.StatusNotModified, serve(h, req).Code, u)
	}
	t.Logf("explorer page weight: %d bytes of assets, %d gzipped", plain, zipped)
	require.Less(t, zipped, plain/2, "the big files are sent gzipped")

	// An old or made-up asset name is a 404 that says what to do, not a 401.
	rec := doRequest(h, http.MethodGet, explorer.AssetPrefix+"000000000000/graphiql.min.js", "")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Contains(t, rec.Body.String(), "reload the explorer page")
	// Vendored files' licenses are served beside them.
	require.Equal(t, http.StatusOK, doRequest(h, http.MethodGet, explorer.URL("LICENSE.graphiql"), "").Code)

	require.NoError(t, m.Flush(t.Context()))
	require.EqualValues(t, 1, e.units(t, key), "only the page itself is charged to the key")
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
