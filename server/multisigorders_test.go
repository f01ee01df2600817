package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// TestMultisigOrderRoutes: /api/v3/multisig/orders and the wallets'
// orders on SQLite and Postgres, over the order tongo's mainnet multisig
// deploys for tongo's mainnet new_order body (emulated with the block's
// libraries: the order's code is a library cell), stored as an import
// stores states (the contracts hook, the store holding the block's config
// and libraries): every field is the proposal's, each parameter alone and
// combined, actions parsed on request, the shapes are toncenter's, bad
// input is 422 naming the parameter, and a newer transaction makes the
// approvals unknown.
func TestMultisigOrderRoutes(t *testing.T) {
	c := contractfixture.New(t)
	ms := contractfixture.ReadTongoMultisig(t)
	body, proposal := contractfixture.TongoNewOrder(t)
	orderID := c.MultisigOrder(ms, body, proposal)
	orderSt, walletSt := c.State(orderID), c.State(ms.Account)
	order, wallet := rawOf(orderID), rawOf(ms.Account)
	p, err := ingest.ParseFile(testenv.Fixture(t, contractfixture.ReplayBlock))
	require.NoError(t, err)

	signers := make([]any, len(ms.Signers))
	for i, s := range ms.Signers {
		signers[i] = s
	}
	seqno := big.Int(proposal.OrderSeqno)
	orderCell := boc.NewCell()
	require.NoError(t, tlb.Marshal(orderCell, proposal.Order))
	orderBOC, err := orderCell.ToBoc()
	require.NoError(t, err)
	want := map[string]any{"address": order, "multisig_address": wallet, "order_seqno": seqno.String(),
		"threshold": float64(ms.Threshold), "sent_for_execution": false,
		"approvals_mask": new(big.Int).Lsh(big.NewInt(1), uint(proposal.Index)).String(), "approvals_num": float64(1),
		"expiration_date": float64(proposal.ExpirationDate), "order_boc": base64.StdEncoding.EncodeToString(orderBOC),
		"signers": signers, "last_transaction_lt": fmt.Sprint(orderSt.LastTxLt),
		"code_hash": orderSt.CodeHash.Base64(), "data_hash": c.DataHash(orderID).Base64(), "actions": nil}
	require.Equal(t, contracts.MultisigOrderCode, *orderSt.CodeHash)
	// The proposal's one action: 0.1 TON to a signer, mode 1, no body.
	send := proposal.Order.Field0.Values()[0].Value.SendMessage.Field0
	dest, err := ton.AccountIDFromTlb(send.Message.MessageInternal.Dest)
	require.NoError(t, err)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			s := storetest.Open(t, db.URL)
			require.NoError(t, s.SaveBatch(ctx, &store.Batch{Config: p.Config}), "the block's config and libraries")
			con := contracts.ForStore(s, nil)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: s}})
			require.Empty(t, listOf(t, h, "/api/v3/multisig/orders?address="+order, "orders"), "not read yet")
			states := []chain.AccountState{walletSt, orderSt}
			require.NoError(t, con.Hook(ctx, states, touched(states...)))

			for _, q := range []string{"address=" + order, "address=" + friendly(order), "multisig_address=" + friendly(wallet),
				"multisig_address=" + wallet + "&address=" + order, "address=" + order + "&parse_actions=false",
				"multisig_address=" + wallet + "&sort=asc&limit=5&offset=0", "multisig_address=" + wallet + "&sort=desc",
				"address=" + order + "," + wallet} {
				got := listOf(t, h, "/api/v3/multisig/orders?"+q, "orders")
				require.Len(t, got, 1, q)
				require.Equal(t, want, got[0], q)
			}
			for _, q := range []string{"address=" + wallet, "multisig_address=" + order, "address=" + order + "&offset=1",
				"address=" + order + "&multisig_address=" + ms.Signers[0]} {
				require.Empty(t, listOf(t, h, "/api/v3/multisig/orders?"+q, "orders"), q)
			}

			// Actions parsed on request, their destination in the book.
			code, page := getJSON(t, h, "/api/v3/multisig/orders?parse_actions=true&address="+order)
			require.Equal(t, http.StatusOK, code, page)
			got := page["orders"].([]any)[0].(map[string]any)
			acts := got["actions"].([]any)
			require.Len(t, acts, 1)
			act := acts[0].(map[string]any)
			require.Equal(t, rawOf(*dest), act["destination"])
			require.Equal(t, fmt.Sprint(uint64(send.Message.MessageInternal.Value.Grams)), act["value"])
			require.Equal(t, float64(send.Mode), act["send_mode"])
			require.Equal(t, true, act["parsed"])
			require.Equal(t, "ton_transfer", act["parsed_body_type"])
			book := page["address_book"].(map[string]any)
			for _, a := range append([]string{order, wallet, rawOf(*dest)}, ms.Signers...) {
				require.Contains(t, book, a)
			}
			require.NotContains(t, page, "metadata", "toncenter's MultisigOrderResponse has none")
			doc, err := json.Marshal(page)
			require.NoError(t, err)
			checkTCShape(t, "MultisigOrderResponse", []string{string(doc)})

			// The wallet's orders (include_orders, toncenter's default).
			for _, q := range []string{"address=" + wallet, "address=" + wallet + "&include_orders=true"} {
				ws := listOf(t, h, "/api/v3/multisig/wallets?"+q, "multisigs")
				require.Len(t, ws, 1)
				require.Equal(t, []any{want}, ws[0]["orders"], q)
			}
			ws := listOf(t, h, "/api/v3/multisig/wallets?include_orders=false&address="+wallet, "multisigs")
			require.Equal(t, []any{}, ws[0]["orders"])
			_, page = getJSON(t, h, "/api/v3/multisig/wallets?address="+wallet)
			require.Contains(t, page["address_book"], order)
			doc, err = json.Marshal(page)
			require.NoError(t, err)
			checkTCShape(t, "MultisigResponse", []string{string(doc)})

			// Bad input: 422 naming the parameter.
			for q, name := range map[string]string{
				"":                                           "address",
				"?address=nope":                              "address",
				"?multisig_address=nope":                     "multisig_address",
				"?address=" + order + "&x=1":                 "x",
				"?address=" + order + "&limit=0":             "limit",
				"?address=" + order + "&offset=-1":           "offset",
				"?address=" + order + "&sort=up":             "sort",
				"?address=" + order + "&parse_actions=yes":   "parse_actions",
				"?address=" + order + "&include_orders=true": "include_orders",
			} {
				code, body := getJSON(t, h, "/api/v3/multisig/orders"+q)
				require.Equal(t, http.StatusUnprocessableEntity, code, "%s: %v", q, body)
				require.Contains(t, fmt.Sprint(body), name, q)
			}

			// A newer transaction than the state read: the approvals and the
			// execution are unknown; the proposal stays.
			require.NoError(t, con.Hook(ctx, nil, map[string]uint64{order: orderSt.LastTxLt + 10}))
			got = listOf(t, h, "/api/v3/multisig/orders?address="+order, "orders")[0]
			for _, k := range []string{"sent_for_execution", "approvals_mask", "approvals_num"} {
				require.Nil(t, got[k], k)
			}
			for _, k := range []string{"order_seqno", "threshold", "signers", "order_boc", "expiration_date"} {
				require.Equal(t, want[k], got[k], k)
			}
			require.Equal(t, fmt.Sprint(orderSt.LastTxLt+10), got["last_transaction_lt"])
			_, page = getJSON(t, h, "/api/v3/multisig/orders?address="+order)
			doc, err = json.Marshal(page)
			require.NoError(t, err)
			checkTCShape(t, "MultisigOrderResponse", []string{string(doc)})
		})
	}
}
