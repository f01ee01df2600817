package rest

import (
	"net/http"
	"net/url"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
)

// Contracts other than tokens in toncenter v3's shapes: NFTSalesResponse
// and VestingContractsResponse (package contracts reads them from their
// states). Differences are in docs/API-NOTES.md.

type tcNftSale struct {
	Type               string         `json:"type"`
	Address            string         `json:"address"`
	NftAddress         *string        `json:"nft_address,omitempty"`
	NftOwnerAddress    *string        `json:"nft_owner_address,omitempty"`
	MarketplaceAddress *string        `json:"marketplace_address,omitempty"`
	LastTransactionLt  string         `json:"last_transaction_lt,omitempty"`
	CodeHash           string         `json:"code_hash,omitempty"`
	DataHash           string         `json:"data_hash,omitempty"`
	Details            *tcSaleDetails `json:"details"`
	NftItem            *tcNftItem     `json:"nft_item,omitempty"`
}

// tcSaleDetails is toncenter's getgems_sale details, as far as the
// reference sale's get_sale_data tells them.
type tcSaleDetails struct {
	FullPrice      *string `json:"full_price,omitempty"`
	MarketplaceFee *string `json:"marketplace_fee,omitempty"`
	RoyaltyAddress *string `json:"royalty_address,omitempty"`
	RoyaltyAmount  *string `json:"royalty_amount,omitempty"`
}

// NftSalesOf renders sales, each with its item when the registry holds it
// (and that item's collection when held too).
func NftSalesOf(in []chain.NftSale, items map[string]chain.NftItem, collections map[string]chain.NftCollection) []tcNftSale {
	out := make([]tcNftSale, len(in))
	for i, s := range in {
		o := tcNftSale{Type: "getgems_sale", Address: s.Address, NftAddress: optional(s.Nft), NftOwnerAddress: optional(s.Seller),
			MarketplaceAddress: optional(s.Marketplace), LastTransactionLt: lt(s.LastTxLt), CodeHash: s.CodeHash.Base64(),
			DataHash: s.DataHash.Base64()}
		if s.Known {
			o.Details = &tcSaleDetails{FullPrice: optional(s.FullPrice), MarketplaceFee: optional(s.MarketplaceFee),
				RoyaltyAddress: optional(s.RoyaltyAddress), RoyaltyAmount: optional(s.RoyaltyAmount)}
		}
		if it, ok := items[s.Nft]; ok {
			o.NftItem = &NftItemsOf([]chain.NftItem{it}, collections)[0]
		}
		out[i] = o
	}
	return out
}

// NftSalesRoute serves GET /api/v3/nft/sales.
func NftSalesRoute(res *resolvers.Resolver) http.HandlerFunc {
	return listRoute(res, "nft_sales", map[string]bool{"address": true}, true,
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			sales, items, err := res.NftSales(r.Context(), splitList(q["address"]))
			if err != nil {
				return nil, nil, nil, err
			}
			var book, tokens, colls []string
			for _, s := range sales {
				book = append(book, s.Address, s.Nft, s.Seller, s.Marketplace, s.RoyaltyAddress)
				tokens = append(tokens, s.Nft)
				if it, ok := items[s.Nft]; ok {
					book = append(book, it.Collection, it.Owner, it.RealOwner)
					tokens = append(tokens, it.Collection)
					colls = append(colls, it.Collection)
				}
			}
			collections, err := res.NftCollectionsByAddress(r.Context(), uniq(colls))
			if err != nil {
				return nil, nil, nil, err
			}
			return NftSalesOf(sales, items, collections), book, tokens, nil
		})
}

type tcVesting struct {
	Address       string   `json:"address"`
	StartTime     int64    `json:"start_time"`
	TotalDuration int64    `json:"total_duration"`
	UnlockPeriod  int64    `json:"unlock_period"`
	CliffDuration int64    `json:"cliff_duration"`
	SenderAddress *string  `json:"sender_address"`
	OwnerAddress  *string  `json:"owner_address"`
	TotalAmount   string   `json:"total_amount"`
	Whitelist     []string `json:"whitelist"` // null while unknown
}

// VestingsOf renders vesting wallets in toncenter's shape.
func VestingsOf(in []chain.Vesting) []tcVesting {
	out := make([]tcVesting, len(in))
	for i, v := range in {
		out[i] = tcVesting{Address: v.Address, StartTime: v.StartTime, TotalDuration: v.TotalDuration,
			UnlockPeriod: v.UnlockPeriod, CliffDuration: v.Cliff, SenderAddress: optional(v.Sender),
			OwnerAddress: optional(v.Owner), TotalAmount: v.TotalAmount, Whitelist: v.Whitelist}
	}
	return out
}

// VestingRoute serves GET /api/v3/vesting.
func VestingRoute(res *resolvers.Resolver) http.HandlerFunc {
	return listRoute(res, "vesting_contracts",
		map[string]bool{"contract_address": true, "wallet_address": true, "check_whitelist": true, "limit": true, "offset": true}, false,
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			a := resolvers.VestingArgs{ContractAddress: splitList(q["contract_address"]), WalletAddress: splitList(q["wallet_address"])}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			if a.CheckWhitelist, err = flag(q, "check_whitelist"); err != nil {
				return nil, nil, nil, err
			}
			list, err := res.Vestings(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			var book []string
			for _, v := range list {
				book = append(book, v.Address, v.Sender, v.Owner)
				book = append(book, v.Whitelist...)
			}
			return VestingsOf(list), book, nil, nil
		})
}
