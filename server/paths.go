package server

import (
	"net"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/apperr"
)

// canonical is the outermost middleware: everything after it (the log
// line, the key check, the routes) sees one spelling of each path.
//
//   - The path is cleaned as RFC 3986 resolves dot segments, and repeated
//     slashes collapse: /KEY//api/v3/actions, /KEY/./api/..., /api/../KEY/...
//     are /KEY/api/v3/actions. Left to http.ServeMux they were answered
//     with a redirect to the cleaned path below the key (so without it),
//     after the key had been charged a unit; and a key after "//" or "/./"
//     was taken for a route and logged.
//   - A path that is not UTF-8 or holds control characters is refused (no
//     route has one).
//   - The client's address goes into the context for the unknown-key
//     lookup limit (apikey.Lookup).
//   - A request with a chunked body is answered and its connection closed:
//     net/http drops a Content-Length sent beside Transfer-Encoding before
//     a handler can see it, and RFC 9112 (6.3) asks that a message with both,
//     a request smuggling attempt, close the connection.
func canonical(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		p := r.URL.Path
		if !utf8.ValidString(p) || strings.ContainsFunc(p, isControl) {
			writeRouteError(w, r, "/", apperr.New(apperr.BadRequest, "the path holds bytes no route has"))
			return
		}
		r = r.WithContext(apikey.WithClient(r.Context(), clientAddr(r.RemoteAddr)))
		if c := cleanPath(p); c != p {
			u := *r.URL
			u.Path, u.RawPath = c, ""
			r.URL = &u
		}
		next.ServeHTTP(w, r)
	})
}

func isControl(c rune) bool { return c < 0x20 || c == 0x7f }

// cleanPath is path.Clean keeping a trailing slash (GraphiQL under a key
// is /KEY/).
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p // "*" of OPTIONS *
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// clientAddr is the address the unknown-key limit counts by: the IP, or
// for IPv6 its /64, which one subscriber usually holds whole.
func clientAddr(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if a.Is4() || a.Is4In6() {
		return a.Unmap().String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// logPath is the path as logs show it: a first segment that is not a
// route is a key (or a mistyped one) and shows as {key}, and any other
// segment that could be a key too (apikey.Redact).
func logPath(p string) string {
	if _, rest, bare := splitKey(p); !bare {
		p = "/{key}" + rest
	}
	return apikey.Redact(p)
}
