package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tonql/tonql/apikey"
)

// unmatchedRoute is the one metrics label of every path no route serves
// (404s, probes of random paths): the label set stays the router's
// patterns plus this, however many paths clients invent.
const unmatchedRoute = "unmatched"

// router is the server's ServeMux, remembering its patterns so that a
// request can be named by the route that serves it: the metrics label, and
// the key check's way to tell a mistyped path from a mistyped key.
type router struct {
	mux    *http.ServeMux
	labels []string       // index -> label; 0 is unmatchedRoute
	index  map[string]int // the mux's pattern -> index into labels
}

func newRouter() *router {
	return &router{mux: http.NewServeMux(), labels: []string{unmatchedRoute}, index: map[string]int{}}
}

// handle registers h under pattern. Its label is the pattern's path
// without a method or the exact-match marker ("GET /metrics" is
// "/metrics", "GET /{$}" is "/"); the catch-all "/" is unmatchedRoute,
// since it serves exactly the paths no route has.
func (rt *router) handle(pattern string, h http.Handler) {
	rt.mux.Handle(pattern, h)
	label := pattern
	if _, path, ok := strings.Cut(pattern, " "); ok {
		label = path
	}
	if label == "/" {
		rt.index[pattern] = 0
		return
	}
	label = strings.TrimSuffix(label, "{$}")
	for i, l := range rt.labels {
		if l == label {
			rt.index[pattern] = i
			return
		}
	}
	rt.index[pattern] = len(rt.labels)
	rt.labels = append(rt.labels, label)
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.mux.ServeHTTP(w, r) }

// match is the label index of the route that serves path, 0 when none
// does. Every route answers GET or any method, so matching as GET names
// the route of a request refused for its method too.
func (rt *router) match(path string) int {
	if path == "" {
		return 0
	}
	_, pattern := rt.mux.Handler(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}})
	return rt.index[pattern] // a pattern never registered (a redirect's ""): 0
}

// route is the label index of a request's path as the key check reads
// it: below a key segment when the path has one, else the path itself.
func (rt *router) route(path string) int {
	if key, rest, bare := splitKey(path); !bare && !rt.typo(key, rest) {
		return rt.match(rest)
	}
	return rt.match(path)
}

// typo tells a path whose first segment is no key and whose remainder is
// no route (/v3/actions, /graphiql): on a server that does not require
// keys that is a path nobody serves, answered 404 rather than "API key
// does not exist". A well-formed key, or a malformed one in front of a
// real route (/not-a-key/api/v3/actions), is still checked as a key.
func (rt *router) typo(key, rest string) bool {
	return !apikey.WellFormed(key) && rt.match(rest) == 0
}
