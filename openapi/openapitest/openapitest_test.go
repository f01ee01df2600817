package openapitest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/openapi/openapitest"
)

// exchange runs one request through a handler that answers status and
// body, and returns what the validator says of it.
func exchange(t *testing.T, method, target, reqBody string, status int, contentType, body string) error {
	t.Helper()
	v, err := openapitest.Load()
	require.NoError(t, err)
	req := httptest.NewRequest(method, target, strings.NewReader(reqBody))
	if reqBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return v.Check(req, []byte(reqBody), status, h, []byte(body))
}

const page = `{"actions":[],"address_book":{},"metadata":{}}`

func TestDocumentedAnswersPass(t *testing.T) {
	for _, c := range []struct {
		method, target, reqBody string
		status                  int
		ct, body                string
	}{
		{"GET", "/api/v3/actions?limit=5&action_type=TonTransfer", "", 200, "application/json", page},
		{"GET", "/0123abcd/api/v3/actions", "", 200, "application/json", page},
		{"HEAD", "/api/v3/actions", "", 200, "application/json", page},
		{"GET", "/api/v3/actions?limit=0", "", 422, "application/json", `{"error":"limit: must be between 1 and 1000","code":422}`},
		{"POST", "/api/v3/actions", "", 405, "application/json", `{"error":"method POST not allowed; use GET","code":405}`},
		{"GET", "/nope", "", 404, "application/json", `{"error":"no route /nope","code":404}`},
		{"GET", "/api/v2/nope", "", 404, "application/json", `{"ok":false,"error":"no route /api/v2/nope","code":404}`},
		{"POST", "/api/v2/jsonRPC", `{"jsonrpc":"2.0","id":"x","method":"getAddressBalance","params":{"address":"EQ"}}`, 200,
			"application/json", `{"ok":true,"result":"5","jsonrpc":"2.0","id":"x"}`},
		{"POST", "/api/v2/jsonRPC", `[{"id":1,"method":"nope"}]`, 200, "application/json",
			`[{"ok":false,"error":"method: unknown","code":422,"jsonrpc":"2.0","id":1}]`},
		{"GET", "/healthz", "", 200, "application/json", `{"status":"ok"}`},
		{"GET", "/api/docs", "", 200, "text/html; charset=utf-8", "<!doctype html>"},
		// integers are decimal: "08" is 8, as the server reads it
		{"GET", "/api/v3/actions?mc_seqno=0000000008&limit=010", "", 200, "application/json", page},
		// a path no route can have is refused before the routes
		{"GET", "/abc%AD/", "", 400, "application/json", `{"error":"the path holds bytes no route has","code":400}`},
	} {
		require.NoError(t, exchange(t, c.method, c.target, c.reqBody, c.status, c.ct, c.body), "%s %s", c.method, c.target)
	}
}

// Each kind of drift the validator exists to catch.
func TestDriftFails(t *testing.T) {
	for name, c := range map[string]struct {
		method, target, reqBody string
		status                  int
		ct, body, want          string
	}{
		"undocumented route":   {"GET", "/api/v3/new", "", 200, "application/json", `{}`, "a new route must be documented"},
		"undocumented status":  {"GET", "/api/v3/actions", "", 418, "application/json", `{"error":"x","code":418}`, "status is not supported"},
		"missing field":        {"GET", "/api/v3/actions", "", 200, "application/json", `{"actions":[]}`, "address_book"},
		"field not documented": {"GET", "/api/v3/actions", "", 200, "application/json", `{"actions":[],"address_book":{},"x":1}`, `"x"`},
		"wrong envelope":       {"GET", "/api/v3/actions?limit=0", "", 422, "application/json", `{"ok":false,"error":"x","code":422}`, "ok"},
		"wrong content type":   {"GET", "/api/v3/actions", "", 200, "text/plain", page, "text/plain"},
		"no-route success":     {"GET", "/nope", "", 200, "application/json", `{"error":"x","code":200}`, "must be documented"},
		"no-route bad body":    {"GET", "/nope", "", 404, "application/json", `{"message":"x"}`, "envelope"},
		"wrong method success": {"GET", "/api/v2/jsonRPC", "", 200, "application/json", `{}`, "not 405"},
		"accepted invalid request": {"GET", "/api/v3/actions?limit=0", "", 200, "application/json", page,
			"accepted a request the document does not allow"},
		"rpc id dropped": {"POST", "/api/v2/jsonRPC", `{"id":1,"method":"getAddressBalance","params":{"address":"EQ"}}`, 200,
			"application/json", `{"ok":true,"result":"5","jsonrpc":"2.0"}`, "id"},
	} {
		err := exchange(t, c.method, c.target, c.reqBody, c.status, c.ct, c.body)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), c.want, name)
	}
}

// Wrap fails the test it was given for an answer the document does not
// describe, and passes what the handler answers through unchanged.
func TestWrapReportsToTheTest(t *testing.T) {
	inner := &failures{}
	h := openapitest.Wrap(inner, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"surprise":true}`))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	require.Equal(t, `{"surprise":true}`, rec.Body.String())
	require.Len(t, inner.errs, 1)
	require.Contains(t, inner.errs[0], "GET /healthz answered 200")
}

type failures struct{ errs []string }

func (f *failures) Helper() {}
func (f *failures) Errorf(format string, a ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, a...))
}
func (f *failures) Fatalf(format string, a ...any) { f.Errorf(format, a...) }
