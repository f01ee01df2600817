package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// TestMultisigRoutes: /api/v3/multisig/wallets on SQLite and Postgres over
// the mainnet multisig v2 wallet of tongo's own ABI test (its code and
// data read from the tongo module's source), stored as an import stores
// states (the contracts hook): every field is what tongo's test expects
// get_multisig_data to answer, each parameter alone and combined, the
// shape is toncenter's MultisigResponse, bad input is 422 naming the
// parameter, and a newer transaction makes the values unknown.
func TestMultisigRoutes(t *testing.T) {
	ms := contractfixture.ReadTongoMultisig(t)
	const lt = 60_000_000_000_001 // the state's last transaction (tongo's case has none)
	st := contractfixture.StateOf(t, ms.Account, ms.Code, ms.Data, lt, 0)
	addr := rawOf(ms.Account)
	dataHash, err := ms.Data.Hash256()
	require.NoError(t, err)
	signers := make([]any, len(ms.Signers))
	for i, s := range ms.Signers {
		signers[i] = s
	}
	want := map[string]any{"address": addr, "next_order_seqno": ms.Seqno, "threshold": float64(ms.Threshold),
		"signers": signers, "proposers": []any{}, "last_transaction_lt": fmt.Sprint(lt),
		"code_hash": st.CodeHash.Base64(), "data_hash": chain.Hash(dataHash).Base64(), "orders": []any{}}
	// orders: [] with include_orders=false; its orders (none: null) by default.
	require.Equal(t, "-1", want["next_order_seqno"], "tongo's case allows arbitrary order seqnos")
	require.Len(t, signers, 4)
	require.False(t, ms.Proposers)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			s := storetest.Open(t, db.URL)
			con := contracts.ForStore(s, nil)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: s}})
			require.Empty(t, listOf(t, h, "/api/v3/multisig/wallets?address="+addr, "multisigs"), "not read yet")
			require.NoError(t, con.Hook(ctx, []chain.AccountState{st}, touched(st)))

			other := ms.Signers[0]
			for _, q := range []string{"address=" + addr, "address=" + friendly(addr), "wallet_address=" + friendly(other),
				"wallet_address=" + ms.Signers[3] + "&address=" + addr, "address=" + addr + "&include_orders=false",
				"address=" + addr + "&include_orders=true&sort=asc&limit=5&offset=0", "wallet_address=" + other + "&sort=desc",
				"address=" + addr + "," + other} {
				got := listOf(t, h, "/api/v3/multisig/wallets?"+q, "multisigs")
				require.Len(t, got, 1, q)
				w := maps.Clone(want)
				if !strings.Contains(q, "include_orders=false") {
					w["orders"] = nil // it has none: toncenter's null
				}
				require.Equal(t, w, got[0], q)
			}
			for _, q := range []string{"address=" + other, "address=" + addr + "&offset=1",
				"address=" + addr + "&wallet_address=" + rawOf(contractfixture.Wallet(9))} {
				require.Empty(t, listOf(t, h, "/api/v3/multisig/wallets?"+q, "multisigs"), q)
			}
			code, body := getJSON(t, h, "/api/v3/multisig/wallets?address="+addr)
			require.Equal(t, http.StatusOK, code)
			book := body["address_book"].(map[string]any)
			for _, a := range append([]string{addr}, ms.Signers...) {
				require.Contains(t, book, a, "the address book names the multisig and its signers")
			}
			require.NotContains(t, body, "metadata", "toncenter's MultisigResponse has none")
			doc, err := json.Marshal(body)
			require.NoError(t, err)
			checkTCShape(t, "MultisigResponse", []string{string(doc)})

			// Bad input: 422 naming the parameter.
			for q, name := range map[string]string{
				"":                                         "address",
				"?address=nope":                            "address",
				"?wallet_address=nope":                     "wallet_address",
				"?address=" + addr + "&x=1":                "x",
				"?address=" + addr + "&limit=0":            "limit",
				"?address=" + addr + "&limit=1001":         "limit",
				"?address=" + addr + "&offset=-1":          "offset",
				"?address=" + addr + "&sort=up":            "sort",
				"?address=" + addr + "&include_orders=yes": "include_orders",
				"?address=" + addr + "&parse_actions=true": "parse_actions",
			} {
				code, body := getJSON(t, h, "/api/v3/multisig/wallets"+q)
				require.Equal(t, http.StatusUnprocessableEntity, code, "%s: %v", q, body)
				require.Contains(t, fmt.Sprint(body), name, q)
			}

			// A newer transaction than the state read: seqno, threshold and
			// members are unknown (never old values), and wallet_address no
			// longer finds it.
			require.NoError(t, con.Hook(ctx, nil, map[string]uint64{addr: lt + 10}))
			got := listOf(t, h, "/api/v3/multisig/wallets?address="+addr, "multisigs")
			require.Len(t, got, 1)
			for _, k := range []string{"next_order_seqno", "threshold", "signers", "proposers"} {
				require.Nil(t, got[0][k], k)
			}
			require.Equal(t, fmt.Sprint(lt+10), got[0]["last_transaction_lt"])
			_, body = getJSON(t, h, "/api/v3/multisig/wallets?address="+addr)
			doc, err = json.Marshal(body)
			require.NoError(t, err)
			checkTCShape(t, "MultisigResponse", []string{string(doc)})
			require.Empty(t, listOf(t, h, "/api/v3/multisig/wallets?wallet_address="+other, "multisigs"))
			// An older state never replaces the newer mark; the state at
			// the newer transaction does.
			require.NoError(t, con.Hook(ctx, []chain.AccountState{st}, nil))
			require.Nil(t, listOf(t, h, "/api/v3/multisig/wallets?address="+addr, "multisigs")[0]["threshold"])
			newer := contractfixture.StateOf(t, ms.Account, ms.Code, ms.Data, lt+10, 0)
			require.NoError(t, con.Hook(ctx, []chain.AccountState{newer}, touched(newer)))
			again := maps.Clone(want)
			again["last_transaction_lt"], again["orders"] = fmt.Sprint(lt+10), nil
			require.Equal(t, []map[string]any{again}, listOf(t, h, "/api/v3/multisig/wallets?wallet_address="+other, "multisigs"))
		})
	}
}
