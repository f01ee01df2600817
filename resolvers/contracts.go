package resolvers

import (
	"context"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
)

// MaxSaleAddresses is toncenter's bound on /api/v3/nft/sales' address.
const MaxSaleAddresses = 1000

// NftSales are the sale contracts of addrs (any form) the store holds,
// each with its NFT item when the registry holds it.
func (r *Resolver) NftSales(ctx context.Context, addrs []string) ([]chain.NftSale, map[string]chain.NftItem, error) {
	if len(addrs) == 0 {
		return nil, nil, apperr.Field("address", "at least 1 address required")
	}
	if len(addrs) > MaxSaleAddresses {
		return nil, nil, apperr.Field("address", "%d addresses given; at most %d", len(addrs), MaxSaleAddresses)
	}
	raw, err := rawAddresses("address", addrs)
	if err != nil {
		return nil, nil, err
	}
	sales, err := r.Store.NftSales(ctx, raw)
	if err != nil || len(sales) == 0 {
		return sales, nil, err
	}
	nfts := make([]string, 0, len(sales))
	for _, s := range sales {
		nfts = append(nfts, s.Nft)
	}
	items, err := r.Store.NftItems(ctx, store.NftItemFilter{Addresses: nfts, TokenPage: store.TokenPage{Limit: len(nfts)}})
	if err != nil {
		return nil, nil, err
	}
	byAddr := make(map[string]chain.NftItem, len(items))
	for _, it := range items {
		byAddr[it.Address] = it
	}
	return sales, byAddr, nil
}

// VestingArgs filter /api/v3/vesting: exactly one of ContractAddress and
// WalletAddress (toncenter's rule).
type VestingArgs struct {
	ContractAddress, WalletAddress []string
	CheckWhitelist                 bool
	TokenListArgs
}

// Vestings lists vesting wallets.
func (r *Resolver) Vestings(ctx context.Context, a VestingArgs) ([]chain.Vesting, error) {
	switch {
	case len(a.ContractAddress) == 0 && len(a.WalletAddress) == 0:
		return nil, apperr.Field("contract_address", "at least one of contract_address or wallet_address is required")
	case len(a.ContractAddress) > 0 && len(a.WalletAddress) > 0:
		return nil, apperr.Field("wallet_address", "only one of contract_address or wallet_address may be given")
	}
	var f store.VestingFilter
	if err := a.filter(&f.TokenPage, addressList{"contract_address", a.ContractAddress, &f.Addresses},
		addressList{"wallet_address", a.WalletAddress, &f.Wallets}); err != nil {
		return nil, err
	}
	f.Whitelisted = a.CheckWhitelist
	return r.Store.Vestings(ctx, f)
}

// salesByAddress are the stored sale contracts of addrs (raw), in the
// graph's shape, by address; a page's items name at most a page of them.
func (r *Resolver) salesByAddress(ctx context.Context, addrs []string) (map[string]*model.NftSale, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	sales, err := r.Store.NftSales(ctx, addrs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*model.NftSale, len(sales))
	for _, s := range sales {
		g := &model.NftSale{Address: s.Address, NftAddress: s.Nft, Marketplace: chain.Optional(s.Marketplace),
			Known: s.Known, LastTransactionLt: s.LastTxLt}
		if s.Known {
			g.Seller, g.RoyaltyAddress = chain.Optional(s.Seller), chain.Optional(s.RoyaltyAddress)
			g.FullPrice, g.MarketplaceFee, g.RoyaltyAmount = optionalBig(s.FullPrice), optionalBig(s.MarketplaceFee), optionalBig(s.RoyaltyAmount)
		}
		out[s.Address] = g
	}
	return out, nil
}

// optionalBig is s as a BigInt, or nil when it is empty (unknown).
func optionalBig(s string) *actions.BigInt {
	if s == "" {
		return nil
	}
	b := actions.BigInt(s)
	return &b
}
