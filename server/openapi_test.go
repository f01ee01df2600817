package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/openapi"
	"github.com/tonql/tonql/ratelimit"
)

// The document and its page answer without a key when keys are required
// (a client reads them before it has one), and under a key too; the rest
// stays closed.
func TestOpenAPIServedWithoutKey(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{require: true})
	h := e.handler(nil)
	key, _ := e.newKey(t, "k", ratelimit.Limit{})
	for _, prefix := range []string{"", "/" + key} {
		rec := doRequest(h, http.MethodGet, prefix+"/api/openapi.json", "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		require.Equal(t, string(openapi.JSON), rec.Body.String())
		doc, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
		require.NoError(t, err)
		require.NoError(t, doc.Validate(context.Background()))

		rec = doRequest(h, http.MethodGet, prefix+"/api/docs", "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
		// The page's one inline script may run under the policy the server
		// gives HTML, and it may fetch the document from us, nothing else.
		script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(rec.Body.String())
		require.NotNil(t, script)
		sum := sha256.Sum256([]byte(script[1]))
		csp := rec.Header().Get("Content-Security-Policy")
		require.Contains(t, csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		require.Contains(t, csp, "connect-src 'self'")
		require.Contains(t, script[1], `fetch("openapi.json")`, "relative, so the page works under a key")
		require.NotContains(t, rec.Body.String(), "https://", "no CDN")
	}
	require.Equal(t, http.StatusUnauthorized, doRequest(h, http.MethodGet, "/api/v3/actions", "").Code)
	require.Equal(t, http.StatusUnauthorized, doRequest(h, http.MethodGet, "/api/openapi.json/x", "").Code)
}

// Every operation the document has is a route of the server: none of them
// falls through to the "no route" answer. (The reverse, that every answer
// is documented, is checked on every request of the server tests.)
func TestEveryDocumentedOperationIsARoute(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{})
	h := e.handler(nil)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(openapi.JSON, &doc))
	n := 0
	for path, item := range doc.Paths {
		for verb := range item {
			method := strings.ToUpper(verb)
			if method == "PARAMETERS" {
				continue
			}
			rec := doRequest(h, method, path, "")
			require.NotContains(t, rec.Body.String(), "no route", "%s %s", method, path)
			require.NotEqual(t, http.StatusMethodNotAllowed, rec.Code, "%s %s", method, path)
			n++
		}
	}
	require.Greater(t, n, 20)
}

// JSON-RPC member names are case-sensitive: "Method" is not the method
// (encoding/json's struct decoding matched it, and the id as "ID").
func TestJSONRPCMemberNamesAreExact(t *testing.T) {
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{})
	h := e.handler(nil)
	rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", `{"jsonrpc":"2.0","ID":7,"Method":"getMasterchainInfo"}`)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"ok":false,"error":"method: must be a string","code":422,"jsonrpc":"2.0","id":null}`, rec.Body.String())
	rec = doRequest(h, http.MethodPost, "/api/v2/jsonRPC", `{"jsonrpc":"2.0","id":7,"method":"getAddressState","Params":{"address":"x"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"id":7`)
	require.Contains(t, rec.Body.String(), `"error":"address:`)
}
