package server_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// traceBodies are the bodies of the toncenter traces' internal messages
// with the op code the indexer recorded for each, one body per op code.
func traceBodies(t *testing.T) (ops []uint32, bodies []string) {
	seen := map[uint32]bool{}
	for _, m := range testenv.TraceMessages(t) {
		if m.Source == nil || m.Opcode == nil || m.Body == "" || seen[uint32(*m.Opcode)] {
			continue
		}
		seen[uint32(*m.Opcode)] = true
		ops = append(ops, uint32(*m.Opcode))
		bodies = append(bodies, m.Body)
	}
	require.Greater(t, len(ops), 10)
	return ops, bodies
}

// TestV3Decode names the op codes and decodes the bodies of the internal
// messages of toncenter's traces (one per op code the indexer recorded),
// by POST and by GET: each decoded body is the type its op code names,
// jetton transfers carry the query id and amount tongo's TL-B reads from
// the same body, a body no decoder reads is an error object (not a
// failure of the request), and bad input is a 422 naming the parameter.
// The route reads no store, so one database suffices.
func TestV3Decode(t *testing.T) {
	ops, bodies := traceBodies(t)
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{}})
	hexOps := make([]string, len(ops))
	for i, op := range ops {
		hexOps[i] = fmt.Sprintf("0x%08x", op)
	}
	req, _ := json.Marshal(map[string]any{"opcodes": hexOps, "bodies": bodies})
	rec := doRequest(h, http.MethodPost, "/api/v3/decode", string(req))
	require.Equal(t, 200, rec.Code, rec.Body.String())
	var out struct {
		Opcodes []string         `json:"opcodes"`
		Bodies  []map[string]any `json:"bodies"`
	}
	d := json.NewDecoder(rec.Body)
	d.UseNumber()
	require.NoError(t, d.Decode(&out))
	require.Len(t, out.Opcodes, len(ops))
	require.Len(t, out.Bodies, len(bodies))
	known, jettons := 0, 0
	for i, body := range out.Bodies {
		typ, ok := body["@type"].(string)
		if !ok {
			require.Contains(t, body["error"], "unknown: ", "op 0x%08x", ops[i])
			continue
		}
		known++
		require.Equal(t, out.Opcodes[i], typ, "op 0x%08x", ops[i])
		if ops[i] == uint32(abi.JettonTransferMsgOpCode) {
			jettons++
			cells, err := boc.DeserializeBocBase64(bodies[i])
			require.NoError(t, err)
			_, err = cells[0].ReadUint(32)
			require.NoError(t, err)
			var want abi.JettonTransferMsgBody
			require.NoError(t, tlb.Unmarshal(cells[0], &want))
			require.Equal(t, "jetton_transfer", typ)
			require.Equal(t, json.Number(strconv.FormatUint(want.QueryId, 10)), body["query_id"])
			amount := big.Int(want.Amount)
			require.Equal(t, amount.String(), fmt.Sprint(body["amount"]))
		}
	}
	require.Greater(t, known, len(ops)/3, "a third of the traces' ops decode at least")
	require.Equal(t, 1, jettons)

	// GET: repeated parameters, decimal and signed op codes as toncenter
	// reads them (hex first: "10" is 0x10)
	q := url.Values{"bodies": bodies[:3]}
	q["opcodes"] = []string{strconv.FormatUint(uint64(abi.JettonTransferMsgOpCode), 16), "0x0f8a7ea5", "-1", "ffffffff"}
	rec = doRequest(h, http.MethodGet, "/api/v3/decode?"+q.Encode(), "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	var got struct {
		Opcodes []string         `json:"opcodes"`
		Bodies  []map[string]any `json:"bodies"`
	}
	d = json.NewDecoder(rec.Body)
	d.UseNumber()
	require.NoError(t, d.Decode(&got))
	require.Equal(t, []string{"jetton_transfer", "jetton_transfer", got.Opcodes[3], got.Opcodes[2]}, got.Opcodes)
	require.Equal(t, out.Bodies[:3], got.Bodies)

	// a comment, built here, decodes to its text; junk is an error object
	comment := boc.NewCell()
	require.NoError(t, comment.WriteUint(0, 32))
	require.NoError(t, tlb.Marshal(comment, tlb.Text("hello toncenter")))
	b64, err := comment.ToBocBase64()
	require.NoError(t, err)
	empty, err := boc.NewCell().ToBoc()
	require.NoError(t, err)
	rec = doRequest(h, http.MethodPost, "/api/v3/decode", `{"bodies":["`+b64+`","te6notaboc","`+hex.EncodeToString(empty)+`"]}`)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	got.Bodies = nil
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	require.Equal(t, map[string]any{"@type": "text_comment", "text": "hello toncenter"}, got.Bodies[0])
	require.Contains(t, got.Bodies[1]["error"], "unknown: ")
	require.Equal(t, map[string]any{"@type": "empty_cell"}, got.Bodies[2])

	many := strings.Repeat(`"1",`, 1000) + `"1"`
	for _, c := range []struct{ method, path, body, want string }{
		{http.MethodGet, "/api/v3/decode?opcodes=zz", "", "opcodes: invalid opcode format at index 0"},
		{http.MethodGet, "/api/v3/decode?opcode=1", "", "opcode: is not a parameter"},
		{http.MethodPost, "/api/v3/decode", `{"opcodes":["1"],"body":["x"]}`, "body: is not a member"},
		{http.MethodPost, "/api/v3/decode", `{"opcodes":"1"}`, "opcodes: must be a list of strings"},
		{http.MethodPost, "/api/v3/decode", `{"opcodes":[` + many + `]}`, "opcodes: at most 1000"},
		{http.MethodPost, "/api/v3/decode", `{"opcodes":["99999999999"]}`, "opcodes: invalid opcode format"},
		{http.MethodPost, "/api/v3/decode", "", "none was sent"},
	} {
		rec := doRequest(h, c.method, c.path, c.body)
		require.Equal(t, 422, rec.Code, rec.Body.String())
		require.Contains(t, rec.Body.String(), c.want)
	}
}
