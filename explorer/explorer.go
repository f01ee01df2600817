// Package explorer serves the GraphQL explorer: GraphiQL, with React and
// its stylesheet embedded in the binary from pinned npm packages
// (package-lock.json here; scripts/explorer-assets.sh copies them), so the
// page works on a machine without internet. The page is ours: a static
// HTML shell and explorer.js, which points GraphiQL at the GraphQL URL of
// the page it runs in, so /KEY/ queries /KEY/graphql.
package explorer

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

// AssetPrefix is where the assets are served. It is a route of its own,
// outside any key: the files are public and the same for everyone.
const AssetPrefix = "/explorer/assets/"

//go:embed assets page.html explorer.js explorer.css favicon.svg
var files embed.FS

// asset is one embedded file, served under a name that holds its hash so
// browsers may keep it forever: a new version is a new URL.
type asset struct {
	ctype string
	body  []byte
	etag  string

	gzOnce sync.Once
	gz     []byte // compressed on first request, never if not worth it
}

var (
	assets = map[string]*asset{} // by URL path
	urls   = map[string]string{} // file name -> URL path
	page   []byte
)

func init() {
	add := func(name string, body []byte) {
		sum := sha256.Sum256(body)
		h := hex.EncodeToString(sum[:6])
		ctype := mime.TypeByExtension(path.Ext(name))
		if ctype == "" {
			ctype = "text/plain; charset=utf-8" // LICENSE.*, VERSIONS
		}
		u := AssetPrefix + h + "/" + name
		assets[u] = &asset{ctype: ctype, body: body, etag: `"` + h + `"`}
		urls[name] = u
	}
	vendored, err := fs.ReadDir(files, "assets")
	if err != nil {
		panic(err)
	}
	for _, e := range vendored {
		body, err := files.ReadFile("assets/" + e.Name())
		if err != nil {
			panic(err)
		}
		add(e.Name(), body)
	}
	for _, name := range []string{"explorer.js", "explorer.css", "favicon.svg"} {
		body, err := files.ReadFile(name)
		if err != nil {
			panic(err)
		}
		add(name, body)
	}

	tpl := template.Must(template.ParseFS(files, "page.html"))
	var b bytes.Buffer
	if err := tpl.Execute(&b, urls); err != nil {
		panic(err)
	}
	page = b.Bytes()
}

// Page serves the explorer's HTML. It is the same bytes at / and /KEY/:
// explorer.js reads the endpoint from the page's own URL.
func Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		// The page is tiny and names the current asset URLs: always fresh.
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write(page)
	})
}

// Assets serves the embedded files under AssetPrefix.
func Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := assets[r.URL.Path]
		if a == nil {
			// An old hash after an upgrade, or a typo: the page names the
			// current URLs.
			http.Error(w, "no explorer asset at "+r.URL.Path+"; reload the explorer page", http.StatusNotFound)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("ETag", a.etag)
		h.Set("Vary", "Accept-Encoding")
		if r.Header.Get("If-None-Match") == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := a.body
		if acceptsGzip(r) {
			if gz := a.compressed(); gz != nil {
				h.Set("Content-Encoding", "gzip")
				body = gz
			}
		}
		_, _ = w.Write(body)
	})
}

// URL returns the URL path an embedded file is served at ("" if none);
// tests and the page template use it.
func URL(name string) string { return urls[name] }

// Files lists the served file names.
func Files() []string {
	names := make([]string, 0, len(urls))
	for n := range urls {
		names = append(names, n)
	}
	return names
}

func (a *asset) compressed() []byte {
	a.gzOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(a.body)
		_ = zw.Close()
		if b.Len() < len(a.body)*9/10 {
			a.gz = b.Bytes()
		}
	})
	return a.gz
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
