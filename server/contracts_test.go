package server_test

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/tokens"
)

func rawOf(id ton.AccountID) string { return chain.RawAddress(id) }

func rawMsgAddr(t *testing.T, a tlb.MsgAddress) string {
	t.Helper()
	id, err := ton.AccountIDFromTlb(a)
	require.NoError(t, err)
	require.NotNil(t, id)
	return rawOf(*id)
}

func touched(states ...chain.AccountState) map[string]uint64 {
	out := map[string]uint64{}
	for _, s := range states {
		out[s.Address] = s.LastTxLt
	}
	return out
}

// TestContractRoutes: /api/v3/nft/sales, /api/v3/vesting and the on-sale
// fields of /api/v3/nft/items, on SQLite and Postgres, over real states:
// tonweb's NFT item, fixed-price sale and vesting wallet codes deployed
// and driven through the emulator, stored as an import stores states
// (the registries' hooks). Each answer is checked against what tongo's own
// TVM and ABI decoder read from the same states.
func TestContractRoutes(t *testing.T) {
	c := contractfixture.New(t)
	seller, market, coll := contractfixture.Wallet(1), contractfixture.Wallet(2), contractfixture.Wallet(3)
	item := c.NftItem(7, coll, seller)
	itemBefore := c.State(item)
	sale := c.NftSale(contractfixture.Sale{Marketplace: market, Nft: item, Royalty: coll,
		FullPrice: 5_000_000_000, Fee: 100_000_000, RoyaltyAmount: 250_000_000})
	c.TransferNft(item, seller, sale)
	itemAfter, saleState := c.State(item), c.State(sale)
	_, sd, err := abi.GetSaleData(context.Background(), c.Executor(sale), sale)
	require.NoError(t, err)
	wantSale := sd.(abi.GetSaleData_BasicResult)

	sender, owner := contractfixture.Wallet(4), contractfixture.Wallet(5)
	w1, w2 := contractfixture.Wallet(6), contractfixture.Wallet(7)
	vest := c.VestingWallet(contractfixture.Vesting{PublicKey: [32]byte{9, 9, 9}, Start: uint64(c.Utime()) - 100,
		Duration: 3600 * 24 * 10, UnlockPeriod: 3600 * 24, Cliff: 3600 * 24 * 2, Amount: 30_000_000_000,
		Sender: sender, Owner: owner})
	c.AddWhitelist(vest, sender, w1, w2)
	vestState := c.State(vest)
	_, vd, err := abi.GetVestingData(context.Background(), c.Executor(vest), vest)
	require.NoError(t, err)
	wantVest := vd.(abi.GetVestingDataResult)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			tok, con := tokens.ForStore(st, nil), contracts.ForStore(st, nil)
			// The item is read (by the seller), then after its transfer
			// (owned by a contract not yet known as a sale), then the
			// sale's state arrives: the item is marked on sale then.
			require.NoError(t, tok.Hook(ctx, []chain.AccountState{itemBefore}, touched(itemBefore)))
			require.NoError(t, tok.Hook(ctx, []chain.AccountState{itemAfter}, touched(itemAfter)))
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			onSale := "/api/v3/nft/items?include_on_sale=true&owner_address=" + friendly(rawOf(seller))
			require.Empty(t, listOf(t, h, onSale, "nft_items"), "not known as a sale yet")
			require.NoError(t, con.Hook(ctx, []chain.AccountState{saleState, vestState}, touched(saleState, vestState)))

			// /nft/sales: get_sale_data's values, with the item.
			sales := listOf(t, h, "/api/v3/nft/sales?address="+friendly(rawOf(sale)), "nft_sales")
			require.Len(t, sales, 1)
			s := sales[0]
			require.Equal(t, "getgems_sale", s["type"])
			require.Equal(t, rawOf(sale), s["address"])
			require.Equal(t, rawMsgAddr(t, wantSale.Nft), s["nft_address"])
			require.Equal(t, rawMsgAddr(t, wantSale.Owner), s["nft_owner_address"])
			require.Equal(t, rawMsgAddr(t, wantSale.Marketplace), s["marketplace_address"])
			require.Equal(t, fmt.Sprint(saleState.LastTxLt), s["last_transaction_lt"])
			fp := big.Int(wantSale.FullPrice)
			require.Equal(t, map[string]any{"full_price": fp.String(), "marketplace_fee": fmt.Sprint(wantSale.MarketFee),
				"royalty_address": rawMsgAddr(t, wantSale.RoyaltyAddress), "royalty_amount": fmt.Sprint(wantSale.RoyaltyAmount)}, s["details"])
			it := s["nft_item"].(map[string]any)
			require.Equal(t, rawOf(item), it["address"])
			require.Equal(t, true, it["on_sale"])
			require.Equal(t, rawOf(sale), it["sale_contract_address"])
			require.Equal(t, rawOf(seller), it["real_owner"])
			_, body := getJSON(t, h, "/api/v3/nft/sales?address="+rawOf(sale))
			require.Contains(t, body, "address_book")
			require.Contains(t, body, "metadata")
			require.Empty(t, listOf(t, h, "/api/v3/nft/sales?address="+friendly(rawOf(vest)), "nft_sales"), "no sale")

			// include_on_sale finds the item by its seller; without it the
			// owner is the sale.
			items := listOf(t, h, onSale, "nft_items")
			require.Equal(t, []string{rawOf(item)}, field(items, "address"))
			require.Empty(t, listOf(t, h, "/api/v3/nft/items?owner_address="+rawOf(seller), "nft_items"))
			require.Equal(t, []string{rawOf(item)}, field(listOf(t, h, "/api/v3/nft/items?owner_address="+rawOf(sale), "nft_items"), "address"))
			// The graph: the seller's items with include_on_sale, each with
			// its sale, equal to /nft/sales' answer.
			gqlSale := func(owner string, onSale bool) []any {
				d := gqlData(t, h, fmt.Sprintf(`{ account(address: %q) { nfts(include_on_sale: %v) { edges { node { address on_sale
					sale { address nft_address seller marketplace full_price marketplace_fee royalty_address royalty_amount known last_transaction_lt } } } } } }`,
					friendly(owner), onSale))
				return d["account"].(map[string]any)["nfts"].(map[string]any)["edges"].([]any)
			}
			require.Empty(t, gqlSale(rawOf(seller), false), "without include_on_sale the seller holds nothing")
			edges := gqlSale(rawOf(seller), true)
			require.Len(t, edges, 1)
			node := edges[0].(map[string]any)["node"].(map[string]any)
			require.Equal(t, rawOf(item), node["address"])
			require.Equal(t, true, node["on_sale"])
			d := s["details"].(map[string]any)
			require.Equal(t, map[string]any{"address": s["address"], "nft_address": s["nft_address"], "seller": s["nft_owner_address"],
				"marketplace": s["marketplace_address"], "full_price": d["full_price"], "marketplace_fee": d["marketplace_fee"],
				"royalty_address": d["royalty_address"], "royalty_amount": d["royalty_amount"], "known": true,
				"last_transaction_lt": float64(saleState.LastTxLt)}, node["sale"])

			// /vesting: each parameter alone and combined.
			want := map[string]any{"address": rawOf(vest), "start_time": float64(wantVest.VestingStartTime),
				"total_duration": float64(wantVest.VestingTotalDuration), "unlock_period": float64(wantVest.UnlockPeriod),
				"cliff_duration": float64(wantVest.CliffDuration), "total_amount": fmt.Sprint(wantVest.VestingTotalAmount),
				"sender_address": rawMsgAddr(t, wantVest.VestingSenderAddress), "owner_address": rawMsgAddr(t, wantVest.OwnerAddress),
				"whitelist": []any{rawOf(w1), rawOf(w2)}}
			if rawOf(w2) < rawOf(w1) {
				want["whitelist"] = []any{rawOf(w2), rawOf(w1)}
			}
			for _, q := range []string{"contract_address=" + friendly(rawOf(vest)), "wallet_address=" + rawOf(owner),
				"wallet_address=" + rawOf(sender), "wallet_address=" + rawOf(w1) + "&check_whitelist=true",
				"wallet_address=" + rawOf(w2) + "," + rawOf(seller) + "&check_whitelist=1&limit=5&offset=0"} {
				got := listOf(t, h, "/api/v3/vesting?"+q, "vesting_contracts")
				require.Len(t, got, 1, q)
				require.Equal(t, want, got[0], q)
			}
			for _, q := range []string{"wallet_address=" + rawOf(w1), "wallet_address=" + rawOf(seller) + "&check_whitelist=true",
				"contract_address=" + rawOf(vest) + "&offset=1"} {
				require.Empty(t, listOf(t, h, "/api/v3/vesting?"+q, "vesting_contracts"), q)
			}
			_, body = getJSON(t, h, "/api/v3/vesting?contract_address="+rawOf(vest))
			require.NotContains(t, body, "metadata", "toncenter's VestingContractsResponse has none")

			// Bad input: 422 naming the parameter.
			for q, name := range map[string]string{
				"/api/v3/nft/sales":                                     "address",
				"/api/v3/nft/sales?address=nope":                        "address",
				"/api/v3/nft/sales?address=" + rawOf(sale) + "&x=1":     "x",
				"/api/v3/nft/sales?address=" + rawOf(sale) + "&limit=1": "limit",
				"/api/v3/vesting":                                       "contract_address",
				"/api/v3/vesting?contract_address=" + rawOf(vest) + "&wallet_address=" + rawOf(owner): "wallet_address",
				"/api/v3/vesting?wallet_address=" + rawOf(owner) + "&check_whitelist=maybe":           "check_whitelist",
				"/api/v3/vesting?wallet_address=" + rawOf(owner) + "&limit=0":                         "limit",
				"/api/v3/vesting?wallet_address=" + rawOf(owner) + "&offset=-1":                       "offset",
				"/api/v3/vesting?wallet_address=" + rawOf(owner) + "&sort=asc":                        "sort",
			} {
				code, body := getJSON(t, h, q)
				require.Equal(t, http.StatusUnprocessableEntity, code, "%s: %v", q, body)
				require.Contains(t, fmt.Sprint(body), name, q)
			}

			// A newer transaction than the states read: the sale's seller
			// and prices and the whitelist are unknown, never old values.
			later := map[string]uint64{rawOf(sale): saleState.LastTxLt + 10, rawOf(vest): vestState.LastTxLt + 10}
			require.NoError(t, con.Hook(ctx, nil, later))
			s = listOf(t, h, "/api/v3/nft/sales?address="+rawOf(sale), "nft_sales")[0]
			require.Nil(t, s["details"])
			require.NotContains(t, s, "nft_owner_address")
			require.Equal(t, fmt.Sprint(saleState.LastTxLt+10), s["last_transaction_lt"])
			// (the seller unknown, the item is found by its owner, the sale)
			unknown := gqlSale(rawOf(sale), false)[0].(map[string]any)["node"].(map[string]any)["sale"].(map[string]any)
			require.Equal(t, false, unknown["known"])
			for _, k := range []string{"seller", "full_price", "marketplace_fee", "royalty_address", "royalty_amount"} {
				require.Nil(t, unknown[k], k)
			}
			v := listOf(t, h, "/api/v3/vesting?contract_address="+rawOf(vest), "vesting_contracts")[0]
			require.Nil(t, v["whitelist"])
			require.Empty(t, listOf(t, h, "/api/v3/vesting?check_whitelist=true&wallet_address="+rawOf(w1), "vesting_contracts"))
			// An older state never replaces the newer mark.
			require.NoError(t, con.Hook(ctx, []chain.AccountState{saleState}, nil))
			require.Nil(t, listOf(t, h, "/api/v3/nft/sales?address="+rawOf(sale), "nft_sales")[0]["details"])
		})
	}
}
