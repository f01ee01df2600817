package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// tokensServer imports the fee-replay block with the token registry on
// and serves the store.
func tokensServer(t *testing.T, db testenv.Database) (http.Handler, *store.Store) {
	t.Helper()
	st := importedFile(t, db, testenv.Fixture(t, tokenfixture.ReplayBlock), true)
	return newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}}), st
}

func getJSON(t *testing.T, h http.Handler, path string) (int, map[string]any) {
	t.Helper()
	rec := doRequest(h, http.MethodGet, path, "")
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return rec.Code, body
}

func listOf(t *testing.T, h http.Handler, path, key string) []map[string]any {
	t.Helper()
	code, body := getJSON(t, h, path)
	require.Equal(t, http.StatusOK, code, "%s: %v", path, body)
	raw, ok := body[key].([]any)
	require.True(t, ok, "%s: no %s in %v", path, key, body)
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i] = r.(map[string]any)
	}
	return out
}

func field(rows []map[string]any, name string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i], _ = r[name].(string)
	}
	return out
}

func friendly(raw string) string { return ton.MustParseAccountID(raw).ToHuman(true, false) }

// TestJettonRoutes: /api/v3/jetton/masters and /jetton/wallets on the
// fee-replay block, on SQLite and Postgres: every wallet's balance, owner
// and master are get_wallet_data's on its state after the block (replayed
// and checked against the block's own state hashes in package tokens);
// tsTON's content is the contract's; each parameter alone and combined.
func TestJettonRoutes(t *testing.T) {
	p, err := ingest.ParseFile(testenv.Fixture(t, tokenfixture.ReplayBlock))
	require.NoError(t, err)
	run := getmethod.New(fees.New(fees.NewMemorySource(p.Config), nil, fees.Options{}))
	after := map[string]*chain.AccountState{}
	for i := range p.After {
		after[p.After[i].Address] = &p.After[i]
	}
	const tsTON = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h, _ := tokensServer(t, db)
			all := listOf(t, h, "/api/v3/jetton/wallets?limit=1000", "jetton_wallets")
			require.GreaterOrEqual(t, len(all), 5)
			for _, w := range all {
				res, err := run.RunState(context.Background(), after[w["address"].(string)], getmethod.Method{Name: "get_wallet_data"}, tlb.VmStack{})
				require.NoError(t, err)
				bal, _ := getmethod.Int(res.Stack.PeekBottom(0))
				owner, _ := getmethod.Address(res.Stack.PeekBottom(1))
				master, _ := getmethod.Address(res.Stack.PeekBottom(2))
				require.Equal(t, bal.String(), w["balance"])
				require.Equal(t, owner, w["owner"])
				require.Equal(t, master, w["jetton"])
			}

			// address, in any form; the answer has the book and metadata.
			one := all[0]
			code, body := getJSON(t, h, "/api/v3/jetton/wallets?address="+friendly(one["address"].(string)))
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, []any{any(one)}, body["jetton_wallets"])
			book := body["address_book"].(map[string]any)
			for _, k := range []string{"address", "owner", "jetton"} {
				require.Contains(t, book, one[k], k)
			}
			// owner_address
			owner := one["owner"].(string)
			got := listOf(t, h, "/api/v3/jetton/wallets?owner_address="+owner, "jetton_wallets")
			var want []string
			for _, w := range all {
				if w["owner"] == owner {
					want = append(want, w["address"].(string))
				}
			}
			require.ElementsMatch(t, want, field(got, "address"))
			// jetton_address, sorted by balance both ways
			master := one["jetton"].(string)
			asc := listOf(t, h, "/api/v3/jetton/wallets?jetton_address="+master+"&sort=asc", "jetton_wallets")
			desc := listOf(t, h, "/api/v3/jetton/wallets?jetton_address="+master+"&sort=desc", "jetton_wallets")
			require.Len(t, desc, len(asc))
			for i := 1; i < len(asc); i++ {
				require.LessOrEqual(t, cmpDecimal(asc[i-1]["balance"].(string), asc[i]["balance"].(string)), 0)
				require.GreaterOrEqual(t, cmpDecimal(desc[i-1]["balance"].(string), desc[i]["balance"].(string)), 0)
			}
			for _, w := range asc {
				require.Equal(t, master, w["jetton"])
			}
			// exclude_zero_balance
			nonzero := listOf(t, h, "/api/v3/jetton/wallets?limit=1000&exclude_zero_balance=true", "jetton_wallets")
			var wantNZ []string
			for _, w := range all {
				if w["balance"] != "0" {
					wantNZ = append(wantNZ, w["address"].(string))
				}
			}
			require.ElementsMatch(t, wantNZ, field(nonzero, "address"))
			// owner and jetton combined; limit and offset page the same order
			both := listOf(t, h, "/api/v3/jetton/wallets?owner_address="+owner+"&jetton_address="+master, "jetton_wallets")
			require.Equal(t, []string{one["address"].(string)}, field(both, "address"))
			page1 := listOf(t, h, "/api/v3/jetton/wallets?limit=2", "jetton_wallets")
			page2 := listOf(t, h, "/api/v3/jetton/wallets?limit=2&offset=2", "jetton_wallets")
			require.Equal(t, field(all[:4], "address"), append(field(page1, "address"), field(page2, "address")...))

			// masters: tsTON's content as its contract holds it (semi-chain:
			// a uri and on-chain attributes), with its metadata entry.
			code, body = getJSON(t, h, "/api/v3/jetton/masters?address="+friendly(tsTON))
			require.Equal(t, http.StatusOK, code)
			masters := body["jetton_masters"].([]any)
			require.Len(t, masters, 1)
			m := masters[0].(map[string]any)
			require.Equal(t, tsTON, m["address"])
			content := m["jetton_content"].(map[string]any)
			require.NotEmpty(t, content["uri"])
			require.Contains(t, body["metadata"], tsTON)
			allMasters := listOf(t, h, "/api/v3/jetton/masters", "jetton_masters")
			require.GreaterOrEqual(t, len(allMasters), 2)
			if admin, ok := m["admin_address"].(string); ok {
				byAdmin := listOf(t, h, "/api/v3/jetton/masters?admin_address="+admin, "jetton_masters")
				require.Contains(t, field(byAdmin, "address"), tsTON)
			}
		})
	}
}

func cmpDecimal(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// TestNftRoutes: /api/v3/nft/items and /nft/collections on the fee-replay
// block (a Telemint item minted and transferred there, and Fragment's
// collection), on SQLite and Postgres, each parameter alone and combined.
func TestNftRoutes(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h, _ := tokensServer(t, db)
			items := listOf(t, h, "/api/v3/nft/items", "nft_items")
			require.NotEmpty(t, items)
			it := items[0]
			coll := it["collection_address"].(string)
			owner := it["owner_address"].(string)
			require.Equal(t, coll, it["collection"].(map[string]any)["address"], "the item shows its collection")
			require.NotEmpty(t, it["content"], "full content, made by the collection")
			for _, q := range []string{
				"address=" + friendly(it["address"].(string)),
				"owner_address=" + owner,
				"collection_address=" + coll,
				"collection_address=" + coll + "&index=" + it["index"].(string),
				"owner_address=" + owner + "&collection_address=" + coll,
				"owner_address=" + owner + "&include_on_sale=true",
				"sort_by_last_transaction_lt=true",
				"collection_address=" + coll + "&sort_by_last_transaction_lt=true&include_on_sale=false",
			} {
				got := listOf(t, h, "/api/v3/nft/items?"+q, "nft_items")
				require.Equal(t, []string{it["address"].(string)}, field(got, "address"), q)
			}
			for _, q := range []string{
				"owner_address=0:" + strings.Repeat("AB", 32),
				"collection_address=" + coll + "&index=1",
			} {
				require.Empty(t, listOf(t, h, "/api/v3/nft/items?"+q, "nft_items"), q)
			}
			code, body := getJSON(t, h, "/api/v3/nft/items?address="+it["address"].(string))
			require.Equal(t, http.StatusOK, code)
			require.Contains(t, body["metadata"], it["address"])
			require.Contains(t, body["address_book"], owner)

			colls := listOf(t, h, "/api/v3/nft/collections", "nft_collections")
			require.Contains(t, field(colls, "address"), coll)
			got := listOf(t, h, "/api/v3/nft/collections?collection_address="+friendly(coll), "nft_collections")
			require.Equal(t, []string{coll}, field(got, "address"))
			if o, ok := got[0]["owner_address"].(string); ok {
				require.Contains(t, field(listOf(t, h, "/api/v3/nft/collections?owner_address="+o, "nft_collections"), "address"), coll)
			}
		})
	}
}

// TestTokenRouteErrors: bad values are 422 naming the field, in
// toncenter's error body.
func TestTokenRouteErrors(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
	a := fmt.Sprintf("0:%064X", 1)
	many := url.Values{}
	for i := range resolvers.MaxTokenAddresses + 1 {
		many.Add("owner_address", fmt.Sprintf("0:%064X", i))
	}
	cases := map[string]string{
		"/api/v3/jetton/wallets?limit=0":                    "limit: ",
		"/api/v3/jetton/wallets?limit=1001":                 "limit: ",
		"/api/v3/jetton/wallets?limit=x":                    "limit: ",
		"/api/v3/jetton/wallets?offset=-1":                  "offset: ",
		"/api/v3/jetton/wallets?sort=up":                    "sort: ",
		"/api/v3/jetton/wallets?exclude_zero_balance=maybe": "exclude_zero_balance: ",
		"/api/v3/jetton/wallets?owner_address=nope":         "owner_address: ",
		"/api/v3/jetton/wallets?jetton_address=" + a + "&jetton_address=" + fmt.Sprintf("0:%064X", 2): "jetton_address: ",
		"/api/v3/jetton/wallets?" + many.Encode():                                                     "owner_address: 1025 addresses",
		"/api/v3/jetton/wallets?foo=1":                                                                "foo: is not a parameter",
		"/api/v3/jetton/masters?admin_address=0:12":                                                   "admin_address: ",
		"/api/v3/nft/items?index=1":                                                                   "index: ",
		"/api/v3/nft/items?collection_address=" + a + "&index=-1":                                     "index: ",
		"/api/v3/nft/items?collection_address=" + a + "&index=1e3":                                    "index: ",
		"/api/v3/nft/items?include_on_sale=2":                                                         "include_on_sale: ",
		"/api/v3/nft/items?sort_by_last_transaction_lt=yes":                                           "sort_by_last_transaction_lt: ",
		"/api/v3/jetton/wallets?offset=10001":                                                         "offset: ",
		"/api/v3/nft/collections?collection_address=x":                                                "collection_address: ",
		"/api/v3/nft/collections?address=" + a:                                                        "address: is not a parameter",
	}
	paths := make([]string, 0, len(cases))
	for p := range cases {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		code, body := getJSON(t, h, p)
		require.Equal(t, http.StatusUnprocessableEntity, code, p)
		require.Contains(t, body["error"], cases[p], p)
		require.EqualValues(t, 422, body["code"], p)
	}
	rec := doRequest(h, http.MethodPost, "/api/v3/jetton/wallets", "")
	require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	// An empty registry answers empty lists, never an error.
	for _, r := range []struct{ path, key string }{{"/api/v3/jetton/masters", "jetton_masters"},
		{"/api/v3/jetton/wallets", "jetton_wallets"}, {"/api/v3/nft/collections", "nft_collections"}, {"/api/v3/nft/items", "nft_items"}} {
		require.Empty(t, listOf(t, h, r.path, r.key))
	}
}

// gqlData posts a GraphQL query and returns its data, failing on errors.
func gqlData(t *testing.T, h http.Handler, query string) map[string]any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query})
	require.NoError(t, err)
	rec := doRequest(h, http.MethodPost, "/graphql", string(body))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Empty(t, out.Errors, rec.Body.String())
	return out.Data
}

const holdingsQuery = `{ account(address: %q) {
  jettons(first: %d%s) { edges { cursor node { wallet balance jetton last_transaction_lt
    token { address kind name symbol decimals totalSupply admin mintable valid reason } } }
    pageInfo { hasNextPage endCursor } }
  nfts { edges { node { address index collection on_sale last_transaction_lt
    token { address kind valid } collection_token { address kind } } } pageInfo { hasNextPage } } } }`

// TestHoldingsRESTEqualsGraphQL: Account.jettons and Account.nfts give
// what /jetton/wallets?owner_address= and /nft/items?owner_address= give
// (with the masters' supply, admin and mintability from
// /jetton/masters), on SQLite and Postgres; pages by cursor add up to
// the whole list.
func TestHoldingsRESTEqualsGraphQL(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h, _ := tokensServer(t, db)
			owners := map[string]bool{}
			for _, w := range listOf(t, h, "/api/v3/jetton/wallets?limit=1000", "jetton_wallets") {
				owners[w["owner"].(string)] = true
			}
			for _, it := range listOf(t, h, "/api/v3/nft/items?limit=1000", "nft_items") {
				if o, ok := it["owner_address"].(string); ok {
					owners[o] = true
				}
			}
			require.NotEmpty(t, owners)
			for owner := range owners {
				rest := listOf(t, h, "/api/v3/jetton/wallets?limit=1000&owner_address="+owner, "jetton_wallets")
				data := gqlData(t, h, fmt.Sprintf(holdingsQuery, friendly(owner), 100, ""))
				acc := data["account"].(map[string]any)
				edges := acc["jettons"].(map[string]any)["edges"].([]any)
				require.Len(t, edges, len(rest), owner)
				byWallet := map[string]map[string]any{}
				for _, e := range edges {
					n := e.(map[string]any)["node"].(map[string]any)
					byWallet[n["wallet"].(string)] = n
				}
				for _, w := range rest {
					n := byWallet[w["address"].(string)]
					require.NotNil(t, n, w["address"])
					require.Equal(t, w["balance"], n["balance"])
					require.Equal(t, w["jetton"], n["jetton"])
					require.Equal(t, w["last_transaction_lt"], fmt.Sprintf("%.0f", n["last_transaction_lt"]))
					tok := n["token"].(map[string]any)
					require.Equal(t, w["jetton"], tok["address"])
					ms := listOf(t, h, "/api/v3/jetton/masters?address="+w["jetton"].(string), "jetton_masters")
					if len(ms) == 1 {
						require.Equal(t, ms[0]["total_supply"], tok["totalSupply"])
						require.Equal(t, ms[0]["mintable"], tok["mintable"])
						require.Equal(t, ms[0]["admin_address"], tok["admin"])
						require.Equal(t, "jetton_master", tok["kind"])
					}
				}
				restItems := listOf(t, h, "/api/v3/nft/items?limit=1000&owner_address="+owner, "nft_items")
				nftEdges := acc["nfts"].(map[string]any)["edges"].([]any)
				require.Len(t, nftEdges, len(restItems))
				for i, it := range restItems {
					n := nftEdges[i].(map[string]any)["node"].(map[string]any)
					require.Equal(t, it["address"], n["address"])
					require.Equal(t, it["index"], n["index"])
					require.Equal(t, it["collection_address"], n["collection"])
					require.Equal(t, it["on_sale"], n["on_sale"])
					require.Equal(t, "nft_item", n["token"].(map[string]any)["kind"])
					if it["collection_address"] != nil {
						require.Equal(t, it["collection_address"], n["collection_token"].(map[string]any)["address"])
					}
				}

				// One by one through the cursor: the same wallets.
				paged := []string{}
				cursor := ""
				for range len(rest) + 1 {
					data := gqlData(t, h, fmt.Sprintf(holdingsQuery, owner, 1, cursor))
					conn := data["account"].(map[string]any)["jettons"].(map[string]any)
					for _, e := range conn["edges"].([]any) {
						paged = append(paged, e.(map[string]any)["node"].(map[string]any)["wallet"].(string))
					}
					pi := conn["pageInfo"].(map[string]any)
					if !pi["hasNextPage"].(bool) {
						break
					}
					cursor = fmt.Sprintf(", after: %q", pi["endCursor"])
				}
				require.Equal(t, field(rest, "address"), paged, "REST orders one owner's wallets by address too")
			}
		})
	}
}
