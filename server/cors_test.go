package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
)

// A browser's preflight is answered on every route before the key check,
// at no unit; real answers carry the headers a page needs to read them.
func TestCORS(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{require: true, limit: ratelimit.Limit{Rate: 0.001, Burst: 1}})
	a := *e.access
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	build := func(origins string) http.Handler {
		return server.New(server.Options{Resolver: e.res, Access: &a, Origins: server.ParseOrigins(origins)})
	}
	preflight := func(h http.Handler, path, origin string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodOptions, path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, x-api-key")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	h := build("*")
	for _, path := range []string{"/graphql", "/api/v3/actions", "/api/v2/jsonRPC", "/api/v2/estimateFee",
		"/api/v3/actions/stream", "/api/v2/getAddressBalance", "/" + key + "/graphql", "/nowhere"} {
		rec := preflight(h, path, "https://wallet.example")
		require.Equal(t, http.StatusNoContent, rec.Code, path)
		require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"), path)
		require.Contains(t, rec.Header().Get("Access-Control-Allow-Methods"), "POST", path)
		require.Equal(t, "content-type, x-api-key", rec.Header().Get("Access-Control-Allow-Headers"), path)
		require.NotEmpty(t, rec.Header().Get("Access-Control-Max-Age"), path)
	}
	// Preflights used no unit of the key's burst of one.
	req := httptest.NewRequest(http.MethodGet, "/api/v3/actions?limit=1", nil)
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Origin", "https://wallet.example")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	exposed := rec.Header().Get("Access-Control-Expose-Headers")
	require.Contains(t, exposed, "Retry-After")
	require.Contains(t, exposed, "X-Request-Id")
	// A refusal is readable too, so a page can show why and when to retry.
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	require.NotEmpty(t, rec.Header().Get("Retry-After"))

	// OPTIONS that is not a preflight lists the methods (it was 405).
	rec = doRequest(h, http.MethodOptions, "/api/v3/actions", "")
	require.Equal(t, http.StatusNoContent, rec.Code)
	require.Equal(t, "GET, POST, OPTIONS", rec.Header().Get("Allow"))

	// A list of origins: only those are granted, and the answer varies by origin.
	h = build("https://app.example, https://admin.example/")
	rec = preflight(h, "/graphql", "https://admin.example")
	require.Equal(t, "https://admin.example", rec.Header().Get("Access-Control-Allow-Origin"))
	require.Contains(t, rec.Header().Values("Vary"), "Origin")
	rec = preflight(h, "/graphql", "https://evil.example")
	require.Empty(t, rec.Header().Get("Access-Control-Allow-Origin"))
	require.Empty(t, rec.Header().Get("Access-Control-Allow-Methods"))
}

// CORS_ORIGINS also decides which pages may open a subscription socket.
func TestCORSOriginsGuardWebsockets(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{})
	srv := httptest.NewServer(server.New(server.Options{Resolver: e.res, Access: e.access,
		Origins: server.ParseOrigins("https://app.example")}))
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/graphql"
	dial := func(origin string) (int, error) {
		hdr := http.Header{"Sec-WebSocket-Protocol": {"graphql-transport-ws"}}
		if origin != "" {
			hdr.Set("Origin", origin)
		}
		c, resp, err := websocket.DefaultDialer.Dial(url, hdr)
		if c != nil {
			c.Close()
		}
		if resp == nil {
			return 0, err
		}
		return resp.StatusCode, err
	}
	code, err := dial("https://app.example")
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, code)
	code, err = dial("") // not a browser
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, code)
	code, err = dial("https://evil.example")
	require.Error(t, err)
	require.Equal(t, http.StatusForbidden, code)

	o := server.ParseOrigins("https://app.example")
	require.True(t, o.Allows("HTTPS://APP.EXAMPLE"))
	require.False(t, o.Allows("https://app.example.evil"))
	require.True(t, server.ParseOrigins("").Any())
	require.True(t, server.ParseOrigins("*").Any())
}
