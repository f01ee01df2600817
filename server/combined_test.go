package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// A frontend's one request: a wallet's recent actions and the fee of the
// message it is about to send. Each half must equal what its own route
// answers, on the same imported mainnet data.
func TestGraphQLActionsAndFeeInOneRequest(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			h := r.handler(nil)
			m := r.msgs[0]
			wallet := m.Account.ToRaw()

			query := `query($a: String!, $body: String!) {
  actions(filter: {account: $a}, limit: 5) {
    actions { action_id trace_id tx_hash type status title description value start_lt start_utime end_lt end_utime
      transactions trace_end_lt trace_end_utime trace_external_hash_norm mc_seqno }
    address_book
    metadata
  }
  estimateFee(address: $a, body: $body) {
    source_fees { in_fwd_fee storage_fee gas_fee fwd_fee }
    destination_fees { in_fwd_fee storage_fee gas_fee fwd_fee }
  }
}`
			body, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"a": wallet, "body": m.Body}})
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(rec, req)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var gq struct {
				Data struct {
					Actions     json.RawMessage `json:"actions"`
					EstimateFee json.RawMessage `json:"estimateFee"`
				} `json:"data"`
				Errors []any `json:"errors"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &gq))
			require.Empty(t, gq.Errors, rec.Body.String())

			// The actions half is the REST page, byte for byte after canonical form.
			rest := doRequest(h, http.MethodGet, "/api/v3/actions?limit=5&account="+url.QueryEscape(wallet), "")
			require.Equal(t, http.StatusOK, rest.Code)
			require.Equal(t, canonical(t, rest.Body.Bytes()), canonical(t, gq.Data.Actions))
			var page restPage
			require.NoError(t, json.Unmarshal(rest.Body.Bytes(), &page))
			require.NotEmpty(t, page.Actions, "the wallet's transaction in the block is an action")

			// The fee half is the REST estimate, and what the chain charged.
			est, _ := json.Marshal(map[string]string{"address": wallet, "body": m.Body})
			v2 := decodeV2(t, doRequest(h, http.MethodPost, "/api/v2/estimateFee", string(est)).Body.Bytes())
			require.NotNil(t, v2.Result, v2.Error)
			var fee struct {
				SourceFees json.RawMessage `json:"source_fees"`
			}
			require.NoError(t, json.Unmarshal(gq.Data.EstimateFee, &fee))
			restSource, _ := json.Marshal(map[string]uint64{"in_fwd_fee": v2.Result.SourceFees.InFwdFee,
				"storage_fee": v2.Result.SourceFees.StorageFee, "gas_fee": v2.Result.SourceFees.GasFee, "fwd_fee": v2.Result.SourceFees.FwdFee})
			require.JSONEq(t, string(restSource), string(fee.SourceFees))
			require.Equal(t, m.Charged.GasFee, v2.Result.SourceFees.GasFee)
		})
	}
}
