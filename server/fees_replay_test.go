package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/internal/testenv"
)

// TestEstimateFeeRoutesMatchChain sends the 12 external messages of a real
// mainnet block through POST /api/v2/estimateFee on a store filled by the
// importer, and checks every fee against what the chain charged, to the
// nanoton. JSON-RPC (single calls and one batch), GraphQL and
// estimateFeeSimple (the body as a cell object) must give the very same
// numbers.
func TestEstimateFeeRoutesMatchChain(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			h := r.handler(nil) // no cache: every transport emulates on its own
			var batch []string
			rests := make([]*fees.Result, len(r.msgs))
			byRef := 0
			for i, m := range r.msgs {
				// clients send either address form; alternate them
				addr := m.Account.ToRaw()
				if i%2 == 1 {
					addr = m.Account.ToHuman(true, false)
				}
				params := fmt.Sprintf(`{"address":%q,"body":%q}`, addr, m.Body)
				name := fmt.Sprintf("%d %s", i, m.Account.ToRaw()[:12])

				rec := doRequest(h, http.MethodPost, "/api/v2/estimateFee", params)
				require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
				a := decodeV2(t, rec.Body.Bytes())
				require.True(t, *a.OK)
				got, want := a.Result.SourceFees, m.Charged
				require.Equal(t, "query.fees", a.Result.Type)
				require.Equal(t, "fees", got.Type)
				require.NotEmpty(t, a.Result.Extra, "@extra")
				require.Equal(t, [3]uint64{want.StorageFee, want.GasFee, want.FwdFee},
					[3]uint64{got.StorageFee, got.GasFee, got.FwdFee}, "%s: storage/gas/fwd", name)
				extra, err := fees.ByRefSurcharge(r.cfg, m)
				require.NoError(t, err)
				if m.BodyByRef {
					byRef++
					require.NotZero(t, extra, "%s: by-ref body should cost one more cell", name)
				}
				require.Equal(t, want.InFwdFee, got.InFwdFee+extra, "%s: in_fwd_fee (by ref: %v)", name, m.BodyByRef)
				rests[i] = a.Result

				rec = doRequest(h, http.MethodPost, "/api/v2/jsonRPC",
					fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"estimateFee","params":%s}`, i, params))
				require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
				rpc := decodeV2(t, rec.Body.Bytes())
				require.Equal(t, "2.0", rpc.JSONRPC)
				require.JSONEq(t, fmt.Sprint(i), string(rpc.ID))
				sameFees(t, a.Result, rpc.Result, name+": JSON-RPC")

				sameFees(t, a.Result, graphQLEstimate(t, h, addr, m.Body), name+": GraphQL")

				// estimateFeeSimple (tonlib's deprecated call): the body as a
				// cell object, REST and JSON-RPC, must cost the same.
				simple := fmt.Sprintf(`{"address":%q,"body":%s}`, addr, cellObjectJSON(t, m.Body))
				rec = doRequest(h, http.MethodPost, "/api/v2/estimateFeeSimple", simple)
				require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
				sameFees(t, a.Result, decodeV2(t, rec.Body.Bytes()).Result, name+": estimateFeeSimple")
				rec = doRequest(h, http.MethodPost, "/api/v2/jsonRPC",
					fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"estimateFeeSimple","params":%s}`, i, simple))
				require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
				sameFees(t, a.Result, decodeV2(t, rec.Body.Bytes()).Result, name+": estimateFeeSimple JSON-RPC")
				batch = append(batch, fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","method":"estimateFee","params":%s}`, i, params))
			}
			require.Equal(t, 2, byRef, "messages with the body by reference")

			rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", "["+strings.Join(batch, ",")+"]")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var answers []json.RawMessage
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answers))
			require.Len(t, answers, len(r.msgs))
			for i, raw := range answers {
				a := decodeV2(t, raw)
				require.JSONEq(t, fmt.Sprintf(`"b%d"`, i), string(a.ID), "batch answers in order")
				sameFees(t, rests[i], a.Result, fmt.Sprintf("batch %d", i))
			}
		})
	}
}

// graphQLEstimate asks the GraphQL estimateFee field for every fee.
func graphQLEstimate(t testing.TB, h http.Handler, addr, body string) *fees.Result {
	t.Helper()
	const f = `{ in_fwd_fee storage_fee gas_fee fwd_fee }`
	q := `query($a: String!, $b: String!) { estimateFee(address: $a, body: $b) { source_fees ` + f + ` destination_fees ` + f + ` } }`
	req, err := json.Marshal(map[string]any{"query": q, "variables": map[string]string{"a": addr, "b": body}})
	require.NoError(t, err)
	rec := doRequest(h, http.MethodPost, "/graphql", string(req))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		Data struct {
			EstimateFee *fees.Result `json:"estimateFee"`
		} `json:"data"`
		Errors []any `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Empty(t, out.Errors)
	require.NotNil(t, out.Data.EstimateFee)
	return out.Data.EstimateFee
}

// cellObjectJSON writes the cell of a base64 BOC in tonlib's object form
// (as runGetMethod's stack renders cells), the form the v2 "Simple" calls
// take.
func cellObjectJSON(t *testing.T, b64 string) string {
	t.Helper()
	cells, err := boc.DeserializeBocBase64(b64)
	require.NoError(t, err)
	obj, ok := getmethod.CellObject(cells[0])
	require.True(t, ok)
	out, err := json.Marshal(obj)
	require.NoError(t, err)
	return string(out)
}
