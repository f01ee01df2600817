package server

import (
	"net/http"
	"strings"
)

// Origins is the set of browser origins allowed to call the API
// (CORS_ORIGINS). Keys travel in the path, a header or the query, never in
// cookies, so answers carry no credentials and "*" (the default) is safe:
// a page on another site learns nothing it could not fetch itself.
type Origins struct {
	list map[string]bool // empty: any origin
}

// ParseOrigins reads a comma-separated list such as
// "https://app.example,https://admin.example"; "*" or empty allows any.
func ParseOrigins(s string) Origins {
	o := Origins{list: map[string]bool{}}
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimRight(strings.TrimSpace(v), "/")
		switch v {
		case "":
		case "*":
			return Origins{}
		default:
			o.list[strings.ToLower(v)] = true
		}
	}
	return o
}

// Any tells whether every origin is allowed.
func (o Origins) Any() bool { return len(o.list) == 0 }

// Allows tells whether a request from origin may read our answers. A
// request without an Origin header is not a browser's cross-site call.
func (o Origins) Allows(origin string) bool {
	return origin == "" || o.Any() || o.list[strings.ToLower(origin)]
}

// corsMethods are the methods any route takes; corsExposed the response
// headers a browser script needs beyond the safelisted ones: how long to
// wait after a 429 and the id to quote in a report.
const (
	corsMethods = "GET, POST, OPTIONS"
	corsExposed = "Retry-After, X-Request-Id"
	corsMaxAge  = "7200"
)

// cors answers preflights itself (before the key check: a browser sends
// no key and no custom header in one, and it costs no unit) and marks
// every answer to an allowed origin as readable by it. OPTIONS without a
// preflight is answered with the methods routes take.
func cors(o Origins, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		h := w.Header()
		if origin != "" {
			h.Add("Vary", "Origin")
		}
		allowed := origin != "" && o.Allows(origin)
		if allowed {
			if o.Any() {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
			}
			h.Set("Access-Control-Expose-Headers", corsExposed)
		}
		if r.Method != http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		if allowed && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", corsMethods)
			// Any header may be sent: none of ours is a credential a
			// browser adds by itself.
			if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
				h.Set("Access-Control-Allow-Headers", req)
			}
			h.Set("Access-Control-Max-Age", corsMaxAge)
		}
		h.Set("Allow", corsMethods)
		w.WriteHeader(http.StatusNoContent)
	})
}
