package server_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
)

// Defect 8: keys reached the log: the key lookup's error during a database
// outage logged the raw path, and //KEY/..., /./KEY/..., /api/../KEY/...
// were taken for routes and logged whole.
func TestKeysNeverReachTheLog(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			e := newAccessEnv(t, db, accessConfig{require: true})
			defaultLog := captureDefaultLog(t)
			h := e.handler(e.meter())
			key, _ := e.newKey(t, "k", ratelimit.Limit{})
			unknown, _ := apikey.Generate()
			for _, k := range []string{key, unknown, strings.ToUpper(unknown), unknown[:63] + "x"} {
				for _, p := range []string{"//" + k + "/api/v3/actions", "/./" + k + "/api/v3/actions",
					"/api/../" + k + "/api/v3/actions", "/x/" + k + "/api/v3/actions", "/api/v3/" + k,
					"/" + k + "/graphql/" + k, "/%2e/" + k + "/api/v3/actions"} {
					doRequest(h, http.MethodGet, p, "")
				}
			}
			// A database outage during the lookup of an uncached key.
			require.NoError(t, e.st.Close())
			other, _ := apikey.Generate()
			for _, p := range []string{"/" + other + "/api/v3/actions", "/" + other + "/api/v2/jsonRPC", "/" + other + "/graphql"} {
				rec := doRequest(h, http.MethodGet, p, "")
				require.GreaterOrEqual(t, rec.Code, 500, rec.Body.String())
			}
			for name, logs := range map[string]string{"request log": e.logs.String(), "default log": defaultLog.String()} {
				for _, k := range []string{key, unknown, other} {
					require.NotContains(t, strings.ToLower(logs), k[:40], name)
				}
			}
			require.Contains(t, e.logs.String(), `"path":"/{key}/api/v3/actions"`)
		})
	}
}

// Defect 9: /KEY//api/v3/actions, /KEY/./..., /KEY/../KEY/... were
// answered 307 to a location without the key, and charged a unit. Paths
// are now cleaned before routing: each is served under its key.
func TestUncleanPathsKeepTheKeyAndChargeOnlyAnswers(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true})
	m := e.meter()
	h := e.handler(m)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	served := 0
	for _, p := range []string{"/" + key + "//api/v3/actions", "/" + key + "/./api/v3/actions",
		"/" + key + "/../" + key + "/api/v3/actions", "/" + key + "/api//v3/actions?limit=1",
		"/" + key + "/api/v3/./actions", "/" + key + "/api/v3/x/../actions", "//" + key + "/api/v3/actions"} {
		rec := doRequest(h, http.MethodGet, p, "")
		require.Equal(t, http.StatusOK, rec.Code, p)
		require.Empty(t, rec.Header().Get("Location"), p)
		served++
	}
	// Paths that only name GraphiQL's page redirect to it, under the key,
	// and cost nothing.
	for _, p := range []string{"/" + key, "/" + key + "/.", "/" + key + "/api/..", "//" + key} {
		rec := doRequest(h, http.MethodGet, p, "")
		require.Equal(t, http.StatusPermanentRedirect, rec.Code, p)
		require.Equal(t, "/"+key+"/", rec.Header().Get("Location"), p)
	}
	require.NoError(t, m.Flush(t.Context()))
	require.EqualValues(t, served, e.units(t, key))
}

// Defect 12: every new well-formed unknown key cost a database query (one
// client sent 4,199 a second), and the negative cache emptied whole when
// full. Uncached lookups are now limited per client address.
func TestUnknownKeyLookupsLimitedPerAddress(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true})
	h := e.handler(nil)
	good, _ := e.newKey(t, "k", ratelimit.Limit{})
	from := func(addr, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = addr
		h.ServeHTTP(rec, req)
		return rec
	}
	limited := 0
	for range 200 {
		k, _ := apikey.Generate()
		switch rec := from("203.0.113.7:4000", "/"+k+"/api/v3/actions"); rec.Code {
		case http.StatusTooManyRequests:
			limited++
			require.JSONEq(t, `{"error":"too many lookups of unknown API keys from this address; retry after 1s","code":429}`, rec.Body.String())
		default:
			require.Equal(t, http.StatusUnauthorized, rec.Code)
		}
	}
	require.GreaterOrEqual(t, limited, 100, "at most the burst (50) plus the refill of the run is looked up")
	// Another address, and a valid key from the flooding one, still work.
	require.Equal(t, http.StatusOK, from("198.51.100.1:1", "/"+good+"/api/v3/actions").Code)
	require.Equal(t, http.StatusOK, from("203.0.113.7:4000", "/"+good+"/api/v3/actions").Code)
	// IPv6 clients are counted by /64: lookups from as many addresses of
	// one /64 are limited together (by address alone each would have its
	// own burst of 50 and never be). Until one is limited rather than a
	// fixed count: the bucket refills 20 a second, and a slow run (-race
	// on a busy machine) refilled it between 60 lookups.
	limited6 := false
	for i := 0; i < 200 && !limited6; i++ {
		k, _ := apikey.Generate()
		limited6 = from(fmt.Sprintf("[2001:db8:1:2::%x]:1", i+1), "/"+k+"/api/v3/actions").Code == http.StatusTooManyRequests
	}
	require.True(t, limited6, "200 lookups from one /64 were never limited")
	k, _ := apikey.Generate()
	require.Equal(t, http.StatusUnauthorized, from("[2001:db8:1:3::1]:1", "/"+k+"/api/v3/actions").Code)
}

// Defect 14: a request with both Content-Length and Transfer-Encoding
// left the connection open (RFC 9112 6.3: close it); GraphiQL had no CSP
// or X-Frame-Options.
func TestSmugglingShapedRequestClosesTheConnection(t *testing.T) {
	h, _ := gqlServer(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	body := `{"query":"{ __typename }"}`
	chunk := strconv.FormatInt(int64(len(body)), 16)
	_, err = io.WriteString(conn, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"+chunk+"\r\n"+body+"\r\n0\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, resp.Close, "the answer says Connection: close")
	_, err = br.ReadByte()
	require.ErrorIs(t, err, io.EOF, "the server closed the connection")
}

func TestGraphiQLHasSecurityHeaders(t *testing.T) {
	h, _ := gqlServer(t)
	rec := doRequest(h, http.MethodGet, "/", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "DENY", rec.Header().Get("X-Frame-Options"))
	require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	require.Equal(t, "no-referrer", rec.Header().Get("Referrer-Policy"))
	csp := rec.Header().Get("Content-Security-Policy")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.Contains(t, csp, "default-src 'none'")
	require.Contains(t, csp, "connect-src 'self'")
	// Every inline script of the page is allowed by its hash, nothing else
	// inline; the explorer's own page has none, and no other host is named.
	inline := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(rec.Body.String(), -1)
	for _, m := range inline {
		sum := sha256.Sum256([]byte(m[1]))
		require.Contains(t, csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	require.Contains(t, csp, "script-src 'self';")
	require.NotContains(t, csp, "http")
	require.NotContains(t, csp, "'unsafe-inline' 'sha256")
	require.NotContains(t, strings.SplitN(strings.SplitN(csp, "script-src", 2)[1], ";", 2)[0], "unsafe")
	// JSON answers carry the frame and sniff headers too.
	rec = doRequest(h, http.MethodGet, "/api/v3/actions", "")
	require.Equal(t, "DENY", rec.Header().Get("X-Frame-Options"))
	require.Empty(t, rec.Header().Get("Content-Security-Policy"))
}
