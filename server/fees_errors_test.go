package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/internal/testenv"
)

// paramsCase is a bad estimateFee request: the REST body, and the same
// object as the params of a JSON-RPC call.
type paramsCase struct {
	name   string
	params string
	status int
	want   string // in the error message, case-insensitively
}

// TestEstimateFeeMalformed answers every malformed request with a 4xx in
// the route's own envelope, on REST and on JSON-RPC with each type of id.
func TestEstimateFeeMalformed(t *testing.T) {
	r := importFeeReplay(t, testenv.Databases(t)[0])
	h := r.handler(nil)
	cases := badParams(t, r)
	require.GreaterOrEqual(t, len(cases), 30)
	for _, c := range cases {
		t.Run("rest/"+c.name, func(t *testing.T) {
			rec := doRequest(h, http.MethodPost, "/api/v2/estimateFee", c.params)
			checkV2Error(t, rec, c.status, c.want, nil)
		})
		for _, id := range rpcIDs {
			t.Run("rpc/"+c.name+"/id="+id, func(t *testing.T) {
				rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(id, "estimateFee", c.params))
				checkV2Error(t, rec, c.status, c.want, json.RawMessage(id))
			})
		}
	}
}

// rpcIDs are ids of each JSON type; the last one would lose digits if it
// went through a float64.
var rpcIDs = []string{`7`, `"seven"`, `null`, `18446744073709551615`}

func rpcCall(id, method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
}

func badParams(t *testing.T, r *feeReplay) []paramsCase {
	good := r.msgs[0]
	addr, body := good.Account.ToRaw(), good.Body
	other := r.msgs[1].Account.ToRaw()
	friendly := good.Account.ToHuman(true, false)
	nowhere := "0:" + strings.Repeat("ab", 32) // no such account
	badCRC := friendly[:46] + flip(friendly[46:47]) + friendly[47:]
	p := func(a, b string) string { return fmt.Sprintf(`{"address":%s,"body":%s}`, a, b) }
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	A, B := q(addr), q(body)
	with := func(extra string) string { return fmt.Sprintf(`{"address":%s,"body":%s,%s}`, A, B, extra) }
	return []paramsCase{
		{"address missing", `{"body":` + B + `}`, 422, "address: required"},
		{"address number", p(`123`, B), 422, "address: must be a string"},
		{"address array", p(`["`+addr+`"]`, B), 422, "address: must be a string"},
		{"address object", p(`{}`, B), 422, "address: must be a string"},
		{"address empty", p(`""`, B), 422, "address: required"},
		{"address bad hex", p(q("0:"+strings.Repeat("zz", 32)), B), 422, "address"},
		{"address 63 hex digits", p(q(addr[:len(addr)-1]), B), 422, "address"},
		{"address workchain 7", p(q("7"+addr[1:]), B), 422, "address"},
		{"address bad CRC", p(q(badCRC), B), 422, "address"},
		{"address 47 chars", p(q(friendly[:47]), B), 422, "address"},
		{"address huge", p(q(strings.Repeat("E", 10_000)), B), 422, "address"},
		{"body missing", `{"address":` + A + `}`, 422, "body: required"},
		{"body null", p(A, `null`), 422, "body: required"},
		{"body number", p(A, `42`), 422, "body: must be a string"},
		{"body object", p(A, `{"boc":"x"}`), 422, "body: must be a string"},
		{"body bad base64", p(A, q("!!not base64!!")), 422, "body: not base64"},
		{"body not a BOC", p(A, q(base64.StdEncoding.EncodeToString([]byte("hello, world")))), 422, "body: not a valid BOC"},
		{"body two roots", p(A, q(twoRoots())), 422, "exactly one root"},
		{"body bad BOC CRC", p(A, q(badBOCCRC(t))), 422, "body: not a valid BOC"},
		{"body truncated", p(A, q(truncated(t, body))), 422, "body: not a valid BOC"},
		{"body deep", p(A, q(deepBOC(t, 600))), 422, "deeper than 512"},
		{"body many cells", p(A, q(wideBOC(t, 9000, 0))), 422, "body"},
		{"body over 64 KiB", p(A, q(wideBOC(t, 600, 120))), 422, "over the 65535"},
		{"init_code bad base64", with(`"init_code":"%%%"`), 422, "init_code: not base64"},
		{"init_code boolean", with(`"init_code":true`), 422, "init_code: must be a string"},
		{"init_data without init_code", with(`"init_data":` + B), 422, "init_data: given without init_code"},
		{"init_code not the active account's", with(`"init_code":` + B + `,"init_data":` + B), 422, "init_code and init_data do not hash"},
		{"init_code not hashing to address", fmt.Sprintf(`{"address":%q,"body":%s,"init_code":%s,"init_data":%s}`, nowhere, B, B, B), 422, "init_code and init_data do not hash"},
		{"ignore_chksig string", with(`"ignore_chksig":"yes"`), 422, "ignore_chksig: must be a boolean"},
		{"ignore_chksig number", with(`"ignore_chksig":1`), 422, "ignore_chksig: must be a boolean"},
		{"params array", `[` + A + `,` + B + `]`, 422, "must be a JSON object"},
		{"params string", B, 422, "must be a JSON object"},
		{"account without a state", p(q(nowhere), B), 404, "holds no state of account"},
		{"another wallet's signed message", fmt.Sprintf(`{"address":%q,"body":%s,"ignore_chksig":false}`, other, B), 422, "exit code"},
	}
}

// TestEstimateFeeTransportErrors covers what only a transport can get
// wrong: not JSON, size, method, and the JSON-RPC envelope itself.
func TestEstimateFeeTransportErrors(t *testing.T) {
	r := importFeeReplay(t, testenv.Databases(t)[0])
	h := r.handler(nil)
	good := fmt.Sprintf(`{"address":%q,"body":%q}`, r.msgs[0].Account.ToRaw(), r.msgs[0].Body)
	huge := `{"address":"x","body":"` + strings.Repeat("A", 1<<20) + `"}`
	for _, path := range []string{"/api/v2/estimateFee", "/api/v2/jsonRPC"} {
		var idNull json.RawMessage
		if strings.HasSuffix(path, "jsonRPC") {
			idNull = json.RawMessage(`null`) // the id was never read
		}
		for _, c := range []struct {
			name, method, body string
			status             int
			want               string
		}{
			{"not JSON", http.MethodPost, `{"address":`, 400, "not valid JSON"},
			{"plain text", http.MethodPost, `hello`, 400, "not valid JSON"},
			{"empty body", http.MethodPost, ``, 400, "not valid JSON"},
			{"over 1 MiB", http.MethodPost, huge, 413, "over 1048576 bytes"},
			{"GET", http.MethodGet, ``, 405, "use POST"},
			{"PUT", http.MethodPut, good, 405, "use POST"},
		} {
			t.Run(path+"/"+c.name, func(t *testing.T) {
				checkV2Error(t, doRequest(h, c.method, path, c.body), c.status, c.want, idNull)
			})
		}
		t.Run(path+"/over 1 MiB chunked", func(t *testing.T) {
			// no Content-Length: the limit trips while reading
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, path, struct{ *strings.Reader }{strings.NewReader(huge)})
			req.ContentLength = -1
			h.ServeHTTP(rec, req)
			checkV2Error(t, rec, 413, "over 1048576 bytes", idNull)
		})
	}

	rpc := []struct {
		name, body string
		status     int
		want       string
		idKnown    bool // the id is read, so it must be echoed
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":%s,"method":"getShardBlockProof","params":{}}`, 422, `unknown method "getShardBlockProof"`, true},
		{"wallet method without its address", `{"jsonrpc":"2.0","id":%s,"method":"getAddressBalance","params":{}}`, 422, "address: required", true},
		{"method missing", `{"jsonrpc":"2.0","id":%s,"params":{}}`, 422, "method: must be a string", true},
		{"method number", `{"jsonrpc":"2.0","id":%s,"method":5}`, 422, "method: must be a string", true},
		{"params missing", `{"jsonrpc":"2.0","id":%s,"method":"estimateFee"}`, 422, "address: required", true},
		{"params null", `{"jsonrpc":"2.0","id":%s,"method":"estimateFee","params":null}`, 422, "address: required", true},
		{"params array", `{"jsonrpc":"2.0","id":%s,"method":"estimateFee","params":["a","b"]}`, 422, "params: must be a JSON object", true},
		{"jsonrpc a number", `{"jsonrpc":2,"id":%s,"method":"nope"}`, 422, `unknown method "nope"`, true},
		{"request a number", `5`, 422, "must be a JSON-RPC object", false},
		{"request a string", `"estimateFee"`, 422, "must be a JSON-RPC object", false},
		{"empty batch", `[]`, 422, "batch", false},
		{"batch over 100", "[" + strings.TrimSuffix(strings.Repeat(`{"id":1},`, 101), ",") + "]", 422, "batch", false},
	}
	for _, c := range rpc {
		for _, id := range rpcIDs {
			t.Run("jsonRPC/"+c.name+"/id="+id, func(t *testing.T) {
				body, want := c.body, json.RawMessage(`null`)
				if c.idKnown {
					body, want = fmt.Sprintf(c.body, id), json.RawMessage(id)
				}
				checkV2Error(t, doRequest(h, http.MethodPost, "/api/v2/jsonRPC", body), c.status, c.want, want)
			})
		}
	}

	t.Run("jsonRPC/pretty-printed batch", func(t *testing.T) {
		var pretty bytes.Buffer
		require.NoError(t, json.Indent(&pretty, []byte("["+rpcCall(`"p"`, "estimateFee", good)+"]"), "\n", "\t"))
		rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", "\n "+pretty.String()+"\n")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var answers []v2Answer
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answers))
		require.Len(t, answers, 1)
		require.True(t, *answers[0].OK, rec.Body.String())
		require.Equal(t, `"p"`, string(answers[0].ID))
	})

	t.Run("jsonRPC/batch with bad elements", func(t *testing.T) {
		batch := "[" + strings.Join([]string{
			rpcCall(`1`, "estimateFee", good),
			`5`, `"x"`, `null`, `[]`,
			rpcCall(`"two"`, "nope", `{}`),
			rpcCall(`null`, "estimateFee", `{"address":"0:00"}`),
			rpcCall(`18446744073709551615`, "estimateFee", `{"body":1}`),
		}, ",") + "]"
		rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", batch)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var answers []json.RawMessage
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answers))
		require.Len(t, answers, 8)
		first := decodeV2(t, answers[0])
		require.True(t, *first.OK, string(answers[0]))
		require.JSONEq(t, `1`, string(first.ID))
		wantIDs := []string{`null`, `null`, `null`, `null`, `"two"`, `null`, `18446744073709551615`}
		wantMsg := []string{"JSON-RPC object", "JSON-RPC object", "JSON-RPC object", "JSON-RPC object", `unknown method "nope"`, "address", "body: must be a string"}
		for i, raw := range answers[1:] {
			checkRPCErrorBody(t, raw, 422, wantMsg[i], json.RawMessage(wantIDs[i]))
		}
	})
}

// checkV2Error checks status, content type and the envelope: exactly
// ok/error/code on v2, plus jsonrpc and the echoed id when id != nil.
func checkV2Error(t *testing.T, rec *httptest.ResponseRecorder, status int, want string, id json.RawMessage) {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	if status == http.StatusMethodNotAllowed {
		require.Equal(t, "POST", rec.Header().Get("Allow"))
	}
	checkRPCErrorBody(t, rec.Body.Bytes(), status, want, id)
}

func checkRPCErrorBody(t *testing.T, body []byte, status int, want string, id json.RawMessage) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m), string(body))
	keys := []string{"code", "error", "ok"}
	if id != nil {
		keys = []string{"code", "error", "id", "jsonrpc", "ok"}
		require.JSONEq(t, `"2.0"`, string(m["jsonrpc"]))
		require.Equal(t, string(id), string(m["id"]), "id echoed byte for byte")
	}
	got := make([]string, 0, len(m))
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	require.Equal(t, keys, got, string(body))
	require.JSONEq(t, `false`, string(m["ok"]))
	require.JSONEq(t, fmt.Sprint(status), string(m["code"]))
	var msg string
	require.NoError(t, json.Unmarshal(m["error"], &msg))
	require.Contains(t, strings.ToLower(msg), strings.ToLower(want))
	for _, leak := range []string{"panic", "goroutine", ".go:", "sql", "/work/", "tongo"} {
		require.NotContains(t, strings.ToLower(msg), leak)
	}
	require.Less(t, len(msg), 600, "error messages stay short")
}

func flip(c string) string {
	if c == "A" {
		return "B"
	}
	return "A"
}

// twoRoots is a hand-made BOC (no index, no CRC, 1-byte refs and offsets)
// with two cells, both roots.
func twoRoots() string {
	b, _ := hex.DecodeString("b5ee9c72" + "01" + "01" + "02" + "02" + "00" + "05" + "00" + "01" + "0000" + "0001c0")
	return base64.StdEncoding.EncodeToString(b)
}

func badBOCCRC(t *testing.T) string {
	c := boc.NewCell()
	require.NoError(t, c.WriteUint(0xdeadbeef, 32))
	b, err := c.ToBocCustom(false, true, false, 0)
	require.NoError(t, err)
	b[len(b)-1] ^= 0xff
	return base64.StdEncoding.EncodeToString(b)
}

func truncated(t *testing.T, b64 string) string {
	b, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(b[:len(b)-5])
}

// deepBOC is a chain of n cells.
func deepBOC(t *testing.T, n int) string {
	c := boc.NewCell()
	for i := 0; i < n; i++ {
		next := boc.NewCell()
		require.NoError(t, next.WriteUint(uint64(i), 16))
		require.NoError(t, next.AddRef(c))
		c = next
	}
	s, err := c.ToBocBase64()
	require.NoError(t, err)
	return s
}

// wideBOC is a root over n distinct cells of extra bytes each, in a tree of
// fan-out 4 (shallow, so only the count or size can trip).
func wideBOC(t *testing.T, n, extra int) string {
	level := make([]*boc.Cell, n)
	for i := range level {
		level[i] = boc.NewCell()
		require.NoError(t, level[i].WriteUint(uint64(i), 32))
		require.NoError(t, level[i].WriteBytes(bytes.Repeat([]byte{byte(i)}, extra)))
	}
	for len(level) > 1 {
		var up []*boc.Cell
		for i := 0; i < len(level); i += 4 {
			c := boc.NewCell()
			require.NoError(t, c.WriteUint(uint64(len(up)), 32))
			for j := i; j < i+4 && j < len(level); j++ {
				require.NoError(t, c.AddRef(level[j]))
			}
			up = append(up, c)
		}
		level = up
	}
	s, err := level[0].ToBocBase64()
	require.NoError(t, err)
	return s
}
