package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// FuzzWalletCalls sends arbitrary params to every new JSON-RPC method and
// v3 route of a server over an empty database: the answer is a 2xx or a
// 4xx in the route's envelope, never a 5xx, but the one 503 a valid
// message gets when no lite server can send it (every send call).
func FuzzWalletCalls(f *testing.F) {
	st := storetest.Open(f, testenv.Databases(f)[0].URL)
	est := fees.New(st, nil, fees.Options{})
	h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st, Fees: est},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	methods := []string{"getAddressInformation", "getExtendedAddressInformation", "getWalletInformation",
		"getAddressBalance", "getAddressState", "runGetMethod", "getMasterchainInfo", "sendBoc", "sendBocReturnHash",
		"/api/v3/estimateFee", "/api/v3/emulate", "estimateFeeSimple", "sendQuerySimple", "sendCellSimple", "sendBocUnsafe"}
	for i := range methods {
		f.Add(uint8(i), []byte(`{"address":"`+v4Wallet+`","method":"seqno","stack":[["num",1]]}`))
		f.Add(uint8(i), []byte(`{"boc":"te6cckEBAQEAAgAAAEysuc0="}`))
		f.Add(uint8(i), []byte(`{"address":5,"seqno":null}`))
		f.Add(uint8(i), []byte(`[]`))
		f.Add(uint8(i), []byte(`{"address":"`+v4Wallet+`","body":{"data":{"b64":"AAAAAA==","len":32},"refs":[{"data":{"b64":"","len":0}}]},"cell":{"data":{"b64":"gA==","len":1}}}`))
	}
	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		h := checked(t, h)
		m := methods[int(which)%len(methods)]
		var rec interface{ Result() *http.Response }
		if strings.HasPrefix(m, "/") {
			rec = doRequest(h, http.MethodPost, m, string(params))
		} else {
			if !json.Valid(params) {
				params = []byte(`"` + strings.ReplaceAll(string(params), `"`, ``) + `"`)
				if !json.Valid(params) {
					return
				}
			}
			rec = doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(`1`, m, string(params)))
		}
		res := rec.Result()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 500 && !(res.StatusCode == http.StatusServiceUnavailable && strings.HasPrefix(m, "send")) {
			t.Fatalf("%s %s: %d %s", m, params, res.StatusCode, body)
		}
		if !json.Valid(body) {
			t.Fatalf("%s: not JSON: %s", m, body)
		}
	})
}
