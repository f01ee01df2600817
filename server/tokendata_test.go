package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/internal/testenv"
)

// TestGetTokenData: v2 getTokenData over REST and JSON-RPC on the states
// the fee-replay import stores, on SQLite and Postgres: tsTON's master,
// one of its wallets and Fragment's collection answer with the values
// their get methods give on the same states (run here by the project's
// TVM runner, not typed in), in toncenter v2's keys; a wallet contract and
// bad addresses are 422 naming address.
func TestGetTokenData(t *testing.T) {
	const (
		tsTON      = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"
		tsWallet   = "0:93503D3A286A25F9BDE372166FB330B1B2490F00AB1FE0F5293B6CB61F811219"
		fragment   = "0:F5605A75D80184817E82DEE89687BE7511C4713D9A3A1AD0661F3898DBD8DC6D"
		userWallet = "0:8FBF702AAD9874CD09B4F7AF598F2B14E11805E4B5322C01275FCEFF60D1EE4D"
	)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			h := r.handler(nil)
			run := getmethod.New(fees.New(r.st, nil, fees.Options{Now: func() time.Time { return r.now }}))
			call := func(addr, name string) tlb.VmStack {
				res, err := run.Run(context.Background(), ton.MustParseAccountID(addr), getmethod.Method{Name: name}, tlb.VmStack{})
				require.NoError(t, err)
				require.Zero(t, res.ExitCode)
				return res.Stack
			}
			get := func(addr string) map[string]any {
				t.Helper()
				rec := doRequest(h, http.MethodGet, "/api/v2/getTokenData?address="+friendly(addr), "")
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				var out struct {
					OK     bool           `json:"ok"`
					Result map[string]any `json:"result"`
				}
				dec := json.NewDecoder(strings.NewReader(rec.Body.String()))
				dec.UseNumber() // integers of any size
				require.NoError(t, dec.Decode(&out))
				require.True(t, out.OK)
				// JSON-RPC answers the same result.
				rpc := doRequest(h, http.MethodPost, "/api/v2/jsonRPC",
					`{"jsonrpc":"2.0","id":1,"method":"getTokenData","params":{"address":"`+addr+`"}}`)
				require.Equal(t, http.StatusOK, rpc.Code, rpc.Body.String())
				var viaRPC struct {
					Result map[string]any `json:"result"`
				}
				dec = json.NewDecoder(strings.NewReader(rpc.Body.String()))
				dec.UseNumber()
				require.NoError(t, dec.Decode(&viaRPC))
				require.Equal(t, out.Result, viaRPC.Result)
				return out.Result
			}
			number := func(v any) string {
				b, err := json.Marshal(v)
				require.NoError(t, err)
				return strings.TrimSuffix(string(b), "\n")
			}
			decimal := func(v tlb.VmStackValue) string {
				n, ok := getmethod.Int(v)
				require.True(t, ok)
				return n.String()
			}
			human := func(v tlb.VmStackValue) string {
				a, ok := getmethod.Address(v)
				require.True(t, ok)
				return friendly(a)
			}

			m := get(tsTON)
			require.ElementsMatch(t, []string{"total_supply", "mintable", "admin_address", "jetton_content", "jetton_wallet_code", "contract_type"}, keys(m))
			require.Equal(t, "jetton_master", m["contract_type"])
			js := call(tsTON, "get_jetton_data")
			require.Equal(t, decimal(js.PeekBottom(0)), number(m["total_supply"]))
			require.Equal(t, human(js.PeekBottom(2)), m["admin_address"])
			content := m["jetton_content"].(map[string]any)
			require.Equal(t, "onchain", content["type"]) // tsTON's is semi-chain: attributes with a uri
			require.Equal(t, "tsTON", content["data"].(map[string]any)["symbol"])
			require.NotEmpty(t, content["data"].(map[string]any)["uri"])
			require.NotEmpty(t, m["jetton_wallet_code"])

			w := get(tsWallet)
			require.ElementsMatch(t, []string{"balance", "owner", "jetton", "jetton_wallet_code", "contract_type"}, keys(w))
			require.Equal(t, "jetton_wallet", w["contract_type"])
			ws := call(tsWallet, "get_wallet_data")
			require.Equal(t, decimal(ws.PeekBottom(0)), number(w["balance"]))
			require.Equal(t, human(ws.PeekBottom(1)), w["owner"])
			require.Equal(t, friendly(tsTON), w["jetton"])

			c := get(fragment)
			require.ElementsMatch(t, []string{"next_item_index", "collection_content", "owner_address", "contract_type"}, keys(c))
			require.Equal(t, "nft_collection", c["contract_type"])
			cs := call(fragment, "get_collection_data")
			require.Equal(t, decimal(cs.PeekBottom(0)), number(c["next_item_index"]))

			for _, bad := range []string{userWallet, "nope", ""} {
				rec := doRequest(h, http.MethodGet, "/api/v2/getTokenData?address="+bad, "")
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s: %s", bad, rec.Body.String())
				require.Contains(t, rec.Body.String(), `"error":"address`)
			}
		})
	}
}
