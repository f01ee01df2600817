package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

type callCase struct {
	name, method, params string
	status               int
	want                 string // in the error message
}

// badCalls are malformed calls of every wallet method: each is a 4xx that
// names the field, never a 5xx.
func badCalls(t *testing.T, goodMessage string) []callCase {
	internal := internalMessage(t)
	var out []callCase
	for _, m := range []string{"getAddressInformation", "getExtendedAddressInformation", "getWalletInformation",
		"getAddressBalance", "getAddressState"} {
		out = append(out,
			callCase{"no address", m, `{}`, 422, "address: required"},
			callCase{"bad address", m, `{"address":"EQnotanaddress"}`, 422, "address:"},
			callCase{"address CRC", m, `{"address":"EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2M"}`, 422, "address:"},
			callCase{"workchain 7", m, `{"address":"7:` + strings.Repeat("ab", 32) + `"}`, 422, "workchain 7"},
			callCase{"address a number", m, `{"address":5}`, 422, "address: must be a string"},
			callCase{"seqno", m, `{"address":"` + v4Wallet + `","seqno":5}`, 422, "seqno:"},
			callCase{"params a list", m, `[1]`, 422, "params: must be a JSON object"},
			callCase{"huge address", m, `{"address":"` + strings.Repeat("a", 5000) + `"}`, 422, "address: too long"},
		)
	}
	run := func(name, params string, want string) callCase {
		return callCase{name, "runGetMethod", params, 422, want}
	}
	a := `"address":"` + v4Wallet + `"`
	out = append(out,
		run("no method", `{`+a+`}`, "method: required"),
		run("empty method", `{`+a+`,"method":""}`, "method: must be"),
		run("method an object", `{`+a+`,"method":{}}`, "method: must be"),
		run("method a fraction", `{`+a+`,"method":1.5}`, "method: must be"),
		run("method too big", `{`+a+`,"method":99999999999}`, "method: must be"),
		run("stack an object", `{`+a+`,"method":"seqno","stack":{}}`, "stack: must be a list"),
		run("stack entry", `{`+a+`,"method":"seqno","stack":[["num"]]}`, "stack: entry 0"),
		run("stack number", `{`+a+`,"method":"seqno","stack":[["num","0xZZ"]]}`, "stack: entry 0: num"),
		run("stack type", `{`+a+`,"method":"seqno","stack":[["dict","x"]]}`, "unknown type"),
		run("stack cell", `{`+a+`,"method":"seqno","stack":[["tvm.Cell","!!!"]]}`, "not base64"),
		run("stack too long", `{`+a+`,"method":"seqno","stack":[`+strings.TrimSuffix(strings.Repeat(`["num",1],`, 300), ",")+`]}`, "at most 256"),
		run("no address", `{"method":"seqno"}`, "address: required"),
		run("bad address", `{"address":"x","method":"seqno"}`, "address:"),
		run("seqno", `{`+a+`,"method":"seqno","seqno":1}`, "seqno:"),
	)
	out = append(out,
		callCase{"no cell", "sendCellSimple", `{}`, 422, "cell: required"},
		callCase{"cell a string", "sendCellSimple", `{"cell":"te6cc"}`, 422, "cell: must be a cell object"},
		callCase{"cell an internal message", "sendCellSimple", `{"cell":` + cellObjectJSON(t, internal) + `}`, 422, "cell: not an external inbound message"},
		callCase{"cell a body", "sendCellSimple", `{"cell":` + cellObjectJSON(t, bodyOnly(t)) + `}`, 422, "cell:"},
	)
	for _, m := range []string{"sendBoc", "sendBocReturnHash", "sendBocUnsafe"} {
		out = append(out,
			callCase{"no boc", m, `{}`, 422, "boc: required"},
			callCase{"boc not base64", m, `{"boc":"!!"}`, 422, "boc: not base64"},
			callCase{"boc not a BOC", m, `{"boc":"AAAA"}`, 422, "boc:"},
			callCase{"boc a number", m, `{"boc":7}`, 422, "boc: must be a string"},
			callCase{"boc an internal message", m, `{"boc":"` + internal + `"}`, 422, "not an external inbound message"},
			callCase{"boc a body", m, `{"boc":"` + bodyOnly(t) + `"}`, 422, "boc:"},
		)
	}
	return out
}

// internalMessage is an internal message: not what a wallet sends.
func internalMessage(t *testing.T) string {
	t.Helper()
	var m tlb.Message
	m.Info.SumType = "IntMsgInfo"
	m.Info.IntMsgInfo = &struct {
		IhrDisabled bool
		Bounce      bool
		Bounced     bool
		Src         tlb.MsgAddress
		Dest        tlb.MsgAddress
		Value       tlb.CurrencyCollection
		IhrFee      tlb.VarUInteger16
		FwdFee      tlb.Grams
		CreatedLt   uint64
		CreatedAt   uint32
	}{Src: tlb.NoneMsgAddress(), Dest: tlb.NoneMsgAddress()}
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, m))
	s, err := c.ToBocBase64()
	require.NoError(t, err)
	return s
}

func bodyOnly(t *testing.T) string {
	c := boc.NewCell()
	require.NoError(t, c.WriteUint(0, 32))
	s, _ := c.ToBocBase64()
	return s
}

// checkWalletCallsMalformed sends every bad call through JSON-RPC (ids of
// each type) and through /api/v2/<method> (the query of a GET route, the
// body of a POST one).
func checkWalletCallsMalformed(t *testing.T, r *feeReplay) {
	h := r.handler(nil)
	cases := badCalls(t, r.msgs[0].Message)
	require.GreaterOrEqual(t, len(cases), 60)
	for _, c := range cases {
		for _, id := range rpcIDs {
			t.Run("rpc/"+c.method+"/"+c.name+"/id="+id, func(t *testing.T) {
				rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(id, c.method, c.params))
				checkV2Error(t, rec, c.status, c.want, json.RawMessage(id))
			})
		}
		t.Run("rest/"+c.method+"/"+c.name, func(t *testing.T) {
			if post := c.method == "runGetMethod" || strings.HasPrefix(c.method, "send"); post {
				rec := doRequest(h, http.MethodPost, "/api/v2/"+c.method, c.params)
				checkV2Error(t, rec, c.status, c.want, nil)
				return
			}
			var p map[string]any
			if json.Unmarshal([]byte(c.params), &p) != nil {
				return // not an object: no query says that
			}
			q := []string{}
			for k, v := range p {
				q = append(q, k+"="+fmt.Sprint(v))
			}
			rec := doRequest(h, http.MethodGet, "/api/v2/"+c.method+"?"+strings.Join(q, "&"), "")
			if c.name == "address a number" { // a query parameter is a string: "5" is a bad address
				checkV2ErrorAllow(t, rec, 422, "address:", "")
				return
			}
			checkV2ErrorAllow(t, rec, c.status, c.want, "")
		})
	}
}

// TestNewRoutesTransportErrors: wrong HTTP methods, bodies that are not
// JSON or too big, repeated query parameters, on every new route.
func checkNewRoutesTransportErrors(t *testing.T, r *feeReplay) {
	h := r.handler(nil)
	for _, m := range []string{"getAddressInformation", "getExtendedAddressInformation", "getWalletInformation",
		"getAddressBalance", "getAddressState", "getMasterchainInfo"} {
		rec := doRequest(h, http.MethodPost, "/api/v2/"+m, `{}`)
		checkV2ErrorAllow(t, rec, 405, "use GET", "GET")
		rec = doRequest(h, http.MethodGet, "/api/v2/"+m+"?address=a&address=b", "")
		checkV2ErrorAllow(t, rec, 422, "address: given 2 times", "")
	}
	big := `{"boc":"` + strings.Repeat("A", 1<<20) + `"}`
	for _, m := range []string{"runGetMethod", "sendBoc", "sendBocReturnHash", "sendBocUnsafe", "sendCellSimple", "sendQuerySimple", "estimateFeeSimple"} {
		checkV2ErrorAllow(t, doRequest(h, http.MethodGet, "/api/v2/"+m, ""), 405, "use POST", "POST")
		checkV2ErrorAllow(t, doRequest(h, http.MethodPost, "/api/v2/"+m, `{"boc":`), 400, "not valid JSON", "")
		checkV2ErrorAllow(t, doRequest(h, http.MethodPost, "/api/v2/"+m, big), 413, "over", "")
	}
	for _, path := range []string{"/api/v3/estimateFee", "/api/v3/emulate"} {
		checkV3Error(t, doRequest(h, http.MethodGet, path, ""), 405, "use POST")
		checkV3Error(t, doRequest(h, http.MethodPost, path, `{"address":`), 400, "not valid JSON")
		checkV3Error(t, doRequest(h, http.MethodPost, path, big), 413, "over")
		checkV3Error(t, doRequest(h, http.MethodPost, path, `[]`), 422, "params: must be a JSON object")
		checkV3Error(t, doRequest(h, http.MethodPost, path, `{}`), 422, "address: required")
		checkV3Error(t, doRequest(h, http.MethodPost, path, `{"address":"x","body":"te6cc"}`), 422, "address:")
		checkV3Error(t, doRequest(h, http.MethodPost, path, fmt.Sprintf(`{"address":%q,"body":"!!"}`, v4Wallet)), 422, "body: not base64")
		checkV3Error(t, doRequest(h, http.MethodPost, path, fmt.Sprintf(`{"address":%q,"body":%q,"ignore_chksig":"yes"}`, v4Wallet, r.msgs[0].Body)), 422, "ignore_chksig")
	}
	m := r.msgs[0]
	checkV3Error(t, doRequest(h, http.MethodPost, "/api/v3/estimateFee", fmt.Sprintf(`{"boc":%q}`, m.Message)), 422, "boc: not a field of estimateFee")
	checkV3Error(t, doRequest(h, http.MethodPost, "/api/v3/emulate", fmt.Sprintf(`{"boc":%q,"address":%q}`, m.Message, v4Wallet)), 422, "boc: give either boc")
	checkV3Error(t, doRequest(h, http.MethodPost, "/api/v3/emulate", `{"boc":"AAAA"}`), 422, "boc:")
	checkV3Error(t, doRequest(h, http.MethodPost, "/api/v3/emulate", `{"boc":"`+internalMessage(t)+`"}`), 422, "not an external inbound message")
	checkV3Error(t, doRequest(h, http.MethodPost, "/api/v3/emulate", `{"boc":5}`), 422, "boc: must be a string")

	// GraphQL: the field at fault, in extensions
	q, _ := json.Marshal(map[string]any{"query": `{ emulateMessage(boc: "AAAA") { complete } }`})
	rec := doRequest(h, http.MethodPost, "/graphql", string(q))
	require.Equal(t, http.StatusOK, rec.Code)
	var out struct {
		Errors []struct {
			Message    string
			Extensions map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Len(t, out.Errors, 1)
	require.Equal(t, "INVALID_INPUT", out.Errors[0].Extensions["code"])
	require.Equal(t, "boc", out.Errors[0].Extensions["field"])
}

// checkV2ErrorAllow is checkV2Error for routes whose Allow is not POST.
func checkV2ErrorAllow(t *testing.T, rec interface {
	Result() *http.Response
}, status int, want, allow string) {
	t.Helper()
	res := rec.Result()
	body := readAll(t, res)
	require.Equal(t, status, res.StatusCode, body)
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	if allow != "" {
		require.Equal(t, allow, res.Header.Get("Allow"))
	}
	checkRPCErrorBody(t, []byte(body), status, want, nil)
}

func checkV3Error(t *testing.T, rec interface {
	Result() *http.Response
}, status int, want string) {
	t.Helper()
	res := rec.Result()
	body := readAll(t, res)
	require.Equal(t, status, res.StatusCode, body)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	require.Len(t, m, 2, body)
	require.Equal(t, float64(status), m["code"])
	require.Contains(t, strings.ToLower(m["error"].(string)), strings.ToLower(want))
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}
