package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// headHandler is the production handler over the replay store with the
// estimator on the database's head clock, as `serve` runs with
// FEE_CLOCK=head.
func (r *feeReplay) headHandler() http.Handler {
	clock := fees.NewHeadClock(r.st.HeadTime, time.Second)
	est := fees.New(r.st, nil, fees.Options{Clock: clock.Now, ClockName: fees.ClockHead})
	return newServer(r.tb, server.Options{Resolver: &resolvers.Resolver{Store: r.st, Fees: est},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// previewQuery selects every field of the preview, the REST names.
const previewQuery = `query($boc: String!) { emulateMessage(boc: $boc) {` + previewSelection + `} }`

// previewSelection is every field of FeeEstimate, the REST answer's.
const previewSelection = `
  source_fees { in_fwd_fee storage_fee gas_fee fwd_fee }
  destination_fees { in_fwd_fee storage_fee gas_fee fwd_fee }
  config_source utime clock complete
  stopped { account reason message message_hash transaction actions }
  transactions { hash account lt utime parent success aborted compute_exit_code total_fees
    fees { in_fwd_fee storage_fee gas_fee fwd_fee } }
  actions { action_id trace_id tx_hash type status title description value start_lt start_utime end_lt end_utime
    transactions trace_end_lt trace_end_utime trace_external_hash_norm mc_seqno }
  address_book
  metadata
  balance_changes { ton { account change } jettons { owner jetton_wallet jetton_master change } }
  risk { sender ton_out sends_all jettons { jetton_wallet jetton_master amount symbol decimals }
    nfts { nft collection } contracts_deployed fails bounces total_fees }
`

type emulated struct {
	SourceFees      fees.Fees       `json:"source_fees"`
	DestinationFees []fees.Fees     `json:"destination_fees"`
	Utime           uint32          `json:"utime"`
	Clock           string          `json:"clock"`
	Complete        bool            `json:"complete"`
	Transactions    []emulatedTx    `json:"transactions"`
	Actions         []chain.Action  `json:"actions"`
	AddressBook     map[string]any  `json:"address_book"`
	Metadata        map[string]any  `json:"metadata"`
	BalanceChanges  json.RawMessage `json:"balance_changes"`
}

type emulatedTx struct {
	Hash    string    `json:"hash"`
	Account string    `json:"account"`
	Parent  *string   `json:"parent"`
	Fees    fees.Fees `json:"fees"`
}

// checkPreviewRoutes previews the 12 external messages of the imported block
// through POST /api/v3/emulate, on a server at the database's head (the
// block's time and logical time): each source fee is what the chain
// charged, in_fwd_fee included (the message is emulated as it was sent),
// the trace is complete, every address shown is in the address book, the
// block's tokens (enqueued, not made) among them are in the metadata
// object and no other address is, and GraphQL's emulateMessage with every
// field selected answers the same JSON.
func checkPreviewRoutes(t *testing.T, r *feeReplay) {
	h := r.headHandler()
	tokens, err := tokenfixture.Contents(testenv.Fixture(t, tokenfixture.ReplayBlock))
	require.NoError(t, err)
	_, err = r.st.EnqueueTokenContent(context.Background(), tokens)
	require.NoError(t, err)
	isToken := map[string]string{} // toncenter's type
	for _, tc := range tokens {
		isToken[tc.Address] = map[string]string{chain.TokenJettonMaster: "jetton_masters", chain.TokenNftCollection: "nft_collections"}[tc.Kind]
	}
	named := 0
	for i, m := range r.msgs {
		name := m.Account.ToRaw()[:12]
		body, _ := json.Marshal(map[string]string{"boc": m.Message})
		rec := doRequest(h, http.MethodPost, "/api/v3/emulate", string(body))
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
		var got emulated
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
		want := m.Charged
		want.Type = ""
		require.Equal(t, want, got.SourceFees, name)
		require.Equal(t, uint32(r.now.Unix()), got.Utime, name)
		require.Equal(t, "head", got.Clock)
		require.True(t, got.Complete, name)
		require.Len(t, got.Transactions, 1+len(got.DestinationFees), name)
		require.Nil(t, got.Transactions[0].Parent)
		require.Equal(t, got.SourceFees, got.Transactions[0].Fees)
		for i, f := range got.DestinationFees {
			require.Equal(t, f, got.Transactions[i+1].Fees, "%s tx %d", name, i+1)
			require.NotNil(t, got.Transactions[i+1].Parent)
		}
		require.NotEmpty(t, got.Actions, name)
		for _, a := range got.Actions {
			// A previewed action is said in words as a stored one is (the
			// block's tokens are not made and it has no domains: its
			// words name nothing by symbol or domain).
			title, description, ok := actions.Describe(a.Type, a.Status, a.Value, actions.Names{})
			require.True(t, ok, a.Type)
			require.Equal(t, title, a.Title, name)
			require.NotEmpty(t, a.Description, name)
			require.Equal(t, description, a.Description, name)
			var v map[string]any
			require.NoError(t, json.Unmarshal(a.Value, &v))
			for _, addr := range valueAddresses(v) {
				require.Contains(t, got.AddressBook, addr, "%s: %s of %s", name, addr, a.Type)
			}
		}
		for _, tx := range got.Transactions {
			require.Contains(t, got.AddressBook, tx.Account)
		}
		for addr := range got.AddressBook {
			if typ, ok := isToken[addr]; ok {
				named++
				require.Equal(t, map[string]any{"is_indexed": false, "token_info": []any{map[string]any{"type": typ}}},
					got.Metadata[addr], "%s: %s", name, addr)
			}
		}
		for addr := range got.Metadata {
			require.Contains(t, isToken, addr, "%s: %s is no token", name, addr)
		}

		// GraphQL: the same object (every third message: each kind of
		// trace of the block, at a third of the emulations)
		if i%3 != 0 {
			continue
		}
		q, _ := json.Marshal(map[string]any{"query": previewQuery, "variables": map[string]string{"boc": m.Message}})
		gq := doRequest(h, http.MethodPost, "/graphql", string(q))
		require.Equal(t, http.StatusOK, gq.Code)
		var out struct {
			Data   struct{ EmulateMessage json.RawMessage } `json:"data"`
			Errors []any                                    `json:"errors"`
		}
		require.NoError(t, json.Unmarshal(gq.Body.Bytes(), &out))
		require.Empty(t, out.Errors, gq.Body.String())
		require.Equal(t, canonical(t, rec.Body.Bytes()), canonical(t, out.Data.EmulateMessage), name)
	}
	require.Positive(t, named, "the block's previews name some of its tokens")
}

// valueAddresses lists the raw addresses in an action's value.
func valueAddresses(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if _, err := chain.NormalizeAddress(x); err == nil && len(x) == 66 {
			out = append(out, x)
		}
	case map[string]any:
		for _, e := range x {
			out = append(out, valueAddresses(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, valueAddresses(e)...)
		}
	}
	return out
}

// TestFeesAndActionsInOneRequest: a wallet asks, in one GraphQL request,
// for the fees of its message and what it will do; the fees are the
// estimate's, the actions link to their emulated transactions and
// participants (which no store holds).
func checkFeesAndActionsInOneRequest(t *testing.T, r *feeReplay) {
	h := r.headHandler()
	var m *fees.ExternalMessage
	for i := range r.msgs {
		if !r.msgs[i].BodyByRef && r.msgs[i].Account.ToRaw()[:8] == "0:fcd794" {
			m = &r.msgs[i]
		}
	}
	require.NotNil(t, m, "the STON.fi swap's wallet")
	q := `query($a: String!, $b: String!) { estimateFee(address: $a, body: $b) {
  source_fees { in_fwd_fee storage_fee gas_fee fwd_fee }
  actions { type status transactions_full { hash account { address } success } participants { account { address } roles } }
} }`
	body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]string{"a": m.Account.ToRaw(), "b": m.Body}})
	rec := doRequest(h, http.MethodPost, "/graphql", string(body))
	require.Equal(t, http.StatusOK, rec.Code)
	var out struct {
		Data struct {
			EstimateFee struct {
				SourceFees fees.Fees `json:"source_fees"`
				Actions    []struct {
					Type             string
					Status           string
					TransactionsFull []struct {
						Hash    string
						Account struct{ Address string }
						Success bool
					} `json:"transactions_full"`
					Participants []struct {
						Account struct{ Address string }
						Roles   []string
					}
				}
			} `json:"estimateFee"`
		} `json:"data"`
		Errors []any `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Empty(t, out.Errors, rec.Body.String())
	want := m.Charged
	want.Type = ""
	require.Equal(t, want, out.Data.EstimateFee.SourceFees)
	require.Len(t, out.Data.EstimateFee.Actions, 1)
	a := out.Data.EstimateFee.Actions[0]
	require.Equal(t, "JettonSwap", a.Type)
	require.NotEmpty(t, a.TransactionsFull)
	require.NotEmpty(t, a.Participants)
	require.Equal(t, chain.RawAddress(m.Account), a.TransactionsFull[0].Account.Address)

	// fees only: no preview is made, the same numbers
	fo := graphQLEstimate(t, h, m.Account.ToRaw(), m.Body)
	require.Equal(t, want, func() fees.Fees { f := fo.SourceFees; f.Type = ""; return f }())
}

// checkEstimateFeeV3 answers toncenter v3's route: the v2 numbers, in v3's
// shape (fee objects without @type, no envelope).
func checkEstimateFeeV3(t *testing.T, r *feeReplay) {
	h := r.handler(nil)
	for _, m := range r.msgs[:4] {
		params := fmt.Sprintf(`{"address":%q,"body":%q}`, m.Account.ToRaw(), m.Body)
		v3 := doRequest(h, http.MethodPost, "/api/v3/estimateFee", params)
		require.Equal(t, http.StatusOK, v3.Code, v3.Body.String())
		var shape map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(v3.Body.Bytes(), &shape))
		require.Len(t, shape, 2)
		require.NotContains(t, string(shape["source_fees"]), "@type")
		v2 := decodeV2(t, doRequest(h, http.MethodPost, "/api/v2/estimateFee", params).Body.Bytes())
		var got fees.Result
		require.NoError(t, json.Unmarshal(v3.Body.Bytes(), &got))
		sameFees(t, v2.Result, &got, "v3 vs v2")
	}
}
