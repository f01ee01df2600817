package server

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/explorer"
	"github.com/tonql/tonql/metering"
	"github.com/tonql/tonql/openapi"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/store"
)

// Access configures personal endpoints: /{api_key}/api/..., /{api_key}/graphql
// and /{api_key}/ (GraphiQL). A nil Access in Options serves bare routes only.
type Access struct {
	Keys    *apikey.Lookup
	Limiter *ratelimit.Limiter // nil: no rate limits
	Meter   *metering.Meter    // nil: units are not counted
	// Default applies to keys without a limit of their own.
	Default ratelimit.Limit
	// RequireKey makes every API route reachable only under a key; without
	// it the bare routes also work (the local default).
	RequireKey bool
}

// errNoKey is the one answer for a missing, malformed, unknown or revoked
// key (README, "API keys"), so a client learns nothing about which it was.
func errNoKey() error { return apperr.New(apperr.Unauthorized, "API key does not exist") }

// reservedSegment tells first path segments that are routes or public
// files, never keys: a browser asks every host for /favicon.ico, a crawler
// for /robots.txt, and neither may be looked up (or logged) as a key.
func reservedSegment(seg string) bool {
	switch seg {
	case "", "api", "graphql", "healthz", "readyz", "metrics", "favicon.ico", "robots.txt", "explorer",
		"toncenter": // rest.ToncenterPrefix, the toncenter dialect's routes
		return true
	}
	return false
}

// publicRoute answers without a key even when keys are required, and reads
// no key from headers or the query: load balancers and Prometheus have
// none, the contract and the explorer's files are the same for everyone.
func publicRoute(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics", "/favicon.ico", "/robots.txt", openapi.DocumentPath, openapi.DocsPath:
		return true
	}
	return strings.HasPrefix(path, explorer.AssetPrefix)
}

// splitKey splits "/{key}/rest" into the key and "/rest". bare is true for
// paths that start with a route instead of a key.
func splitKey(path string) (key, rest string, bare bool) {
	seg, tail, found := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if reservedSegment(seg) {
		return "", path, true
	}
	if !found {
		return seg, "", false
	}
	return seg, "/" + tail, false
}

// KeyHeader and KeyParam carry a key on bare routes, as toncenter's
// clients send it (README, "API keys").
const (
	KeyHeader = "X-API-Key"
	KeyParam  = "api_key"
)

// keyOutsidePath is the key of a bare route: the X-API-Key header, else the
// api_key query parameter, which is taken out of the URL so that nothing
// downstream (handlers, error messages, cursors) ever sees it.
func keyOutsidePath(r *http.Request) (string, *http.Request) {
	if k := r.Header.Get(KeyHeader); k != "" {
		return k, r
	}
	if !strings.Contains(r.URL.RawQuery, KeyParam) {
		return "", r
	}
	q := r.URL.Query()
	k := q.Get(KeyParam)
	if k == "" {
		return "", r
	}
	q.Del(KeyParam)
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.RawQuery = q.Encode()
	r2.URL = &u
	return k, r2
}

// guard authenticates, rate-limits and meters requests, and strips the key
// segment so the routes below see the bare path. A key in the path wins
// over one in a header or the query.
func (a *Access) guard(next http.Handler, routes *router) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if publicRoute(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		key, rest, bare := splitKey(r.URL.Path)
		if !bare && !a.RequireKey && routes.typo(key, rest) {
			bare = true // a path no route serves: 404 below, not a key's 401
		}
		inPath := !bare
		if bare {
			key, r = keyOutsidePath(r)
			if key == "" {
				if a.RequireKey {
					writeRouteError(w, r, r.URL.Path, errNoKey())
					return
				}
				next.ServeHTTP(w, r)
				return
			}
		} else if rest == "" && apikey.WellFormed(key) {
			// "/{key}" is GraphiQL; its relative links need the slash.
			http.Redirect(w, r, r.URL.Path+"/", http.StatusPermanentRedirect)
			return
		}
		k, err := a.Keys.Find(r.Context(), key)
		if err != nil {
			writeRouteError(w, r, rest, err)
			return
		}
		if k == nil {
			writeRouteError(w, r, rest, errNoKey())
			return
		}
		noteKey(r.Context(), k.ID)
		if wait, err := a.take(k); err != nil {
			retryAfterHeader(w, wait)
			writeRouteError(w, r, rest, err)
			return
		}
		// The key rides the request: stream limits and revocation read it,
		// and the calls that are requests of their own (batch items) are
		// charged through it (cost.Item).
		keyed := withKey(r.WithContext(withAdmitter(r.Context(), a, k)), a, key, k)
		if inPath {
			keyed = withPath(keyed, key, rest)
		}
		if isStream(keyed) {
			// Open for minutes or hours: its unit counts when it starts.
			a.countUnit(k, 0)
			next.ServeHTTP(w, keyed)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, keyed)
		a.countUnit(k, sw.status)
	})
}

// limitOf is the key's own limit where it has one, else the default.
func (a *Access) limitOf(k *store.APIKey) ratelimit.Limit {
	lim := a.Default
	switch {
	case k.RateLimit < 0:
		return ratelimit.Limit{}
	case k.RateLimit > 0:
		lim.Rate = k.RateLimit
	}
	if k.RateBurst > 0 {
		lim.Burst = k.RateBurst
	}
	if lim.Burst <= 0 {
		lim.Burst = max(1, int(math.Ceil(lim.Rate)))
	}
	return lim
}

func describeLimit(l ratelimit.Limit) string {
	return strconv.FormatFloat(l.Rate, 'f', -1, 64) + " requests/s, burst " + strconv.Itoa(l.Burst)
}

// withPath is r with the key segment removed from its URL, the way
// http.StripPrefix does it.
func withPath(r *http.Request, key, rest string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := new(url.URL)
	*u = *r.URL
	u.Path = rest
	if r.URL.RawPath != "" {
		u.RawPath = strings.TrimPrefix(r.URL.RawPath, "/"+url.PathEscape(key))
	}
	r2.URL = u
	return r2
}
