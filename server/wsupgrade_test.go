package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// A websocket handshake on /graphql that cannot succeed is answered with
// one GraphQL error naming what was wrong (403 for a foreign origin), and nothing is written to the
// standard logger (the request log, with its sampling, is the only line).
// (Before: 400 text/plain "Bad Request" followed by a second body from
// gqlgen, a log.Printf line and net/http's "superfluous WriteHeader" line.)
func TestWebsocketUpgradeRefusal(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	res := &resolvers.Resolver{Store: st}
	startHub(t, st, res, notify.Options{})
	var stdlog, reqlog testenv.SyncBuffer
	srv := streamServer(t, server.Options{Resolver: res, Origins: server.ParseOrigins("https://app.example"),
		Logger: slog.New(slog.NewJSONHandler(&reqlog, nil))})
	before := log.Writer()
	log.SetOutput(&stdlog)
	t.Cleanup(func() { log.SetOutput(before) })

	valid := http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"},
		"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}
	cases := map[string]struct {
		change func(h http.Header)
		reason string
	}{
		"not websocket":  {func(h http.Header) { h.Set("Upgrade", "h2c") }, "Upgrade header must name websocket"},
		"no connection":  {func(h http.Header) { h.Del("Connection") }, "Connection header must hold the upgrade token"},
		"no version":     {func(h http.Header) { h.Del("Sec-Websocket-Version") }, "Sec-WebSocket-Version header must be 13"},
		"old version":    {func(h http.Header) { h.Set("Sec-Websocket-Version", "8") }, "Sec-WebSocket-Version header must be 13"},
		"no key":         {func(h http.Header) { h.Del("Sec-Websocket-Key") }, "Sec-WebSocket-Key header must be 16 bytes in base64"},
		"short key":      {func(h http.Header) { h.Set("Sec-Websocket-Key", "c2hvcnQ=") }, "Sec-WebSocket-Key header must be 16 bytes in base64"},
		"foreign origin": {func(h http.Header) { h.Set("Origin", "https://evil.example") }, "origin is not in the server's CORS_ORIGINS"},
	}
	status := func(name string) (int, string) {
		if name == "foreign origin" {
			return http.StatusForbidden, "FORBIDDEN"
		}
		return http.StatusBadRequest, "BAD_REQUEST"
	}
	for name, c := range cases {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/graphql", nil)
		require.NoError(t, err)
		req.Header = valid.Clone()
		c.change(req.Header)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, name)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		wantStatus, wantCode := status(name)
		require.Equal(t, wantStatus, resp.StatusCode, name)
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"), name)
		var e struct {
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		require.NoError(t, dec.Decode(&e), name)
		_, err = dec.Token()
		require.ErrorIs(t, err, io.EOF, "%s: one body, got %q", name, body)
		require.Len(t, e.Errors, 1, name)
		require.Contains(t, e.Errors[0].Message, c.reason, name)
		require.Contains(t, e.Errors[0].Message, "websocket upgrade refused", name)
		require.Equal(t, wantCode, e.Errors[0].Extensions["code"], name)
	}
	require.Empty(t, stdlog.String(), "nothing outside the request log")
	require.Equal(t, len(cases)-1, strings.Count(reqlog.String(), `"status":400`), reqlog.String())
	require.Equal(t, 1, strings.Count(reqlog.String(), `"status":403`), reqlog.String())

	// The handshake itself still works, from an allowed origin too.
	ws := dialGraphQL(t, srv.URL, "")
	require.NotNil(t, ws)
}
