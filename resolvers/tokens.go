package resolvers

import (
	"context"
	"math/big"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/store"
)

// Bounds of the token registry's lists, as toncenter bounds them.
const (
	DefaultTokenLimit = 10
	MaxTokenLimit     = 1000
	// MaxTokenAddresses bounds each address list of one request.
	MaxTokenAddresses = 1024
)

// TokenListArgs are the arguments every registry list takes. Address
// lists are in any form; each is checked.
type TokenListArgs struct {
	Limit, Offset *int
}

func (a TokenListArgs) page() (store.TokenPage, error) {
	p := store.TokenPage{Limit: DefaultTokenLimit}
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > MaxTokenLimit {
			return p, apperr.Field("limit", "must be from 1 to %d", MaxTokenLimit)
		}
		p.Limit = *a.Limit
	}
	if a.Offset != nil {
		if *a.Offset < 0 {
			return p, apperr.Field("offset", "must be 0 or more")
		}
		if *a.Offset > cost.MaxOffset {
			// The database reads and drops every skipped row.
			return p, apperr.Field("offset", "must be at most %d; narrow the query (start_lt/end_lt, an owner) instead", cost.MaxOffset)
		}
		p.Offset = *a.Offset
	}
	return p, nil
}

// rawAddresses checks a list of addresses (any form) and returns them raw,
// without repeats.
func rawAddresses(field string, in []string) ([]string, error) {
	if len(in) > MaxTokenAddresses {
		return nil, apperr.Field(field, "%d addresses given; at most %d", len(in), MaxTokenAddresses)
	}
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, a := range in {
		id, err := chain.ParseAddress(a)
		if err != nil {
			return nil, apperr.Field(field, "%q: %v", apperr.Excerpt(a), err)
		}
		if s := chain.RawAddress(id); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// addressList is one address list of a registry request: its parameter
// name, what the client gave, where the raw addresses go.
type addressList struct {
	field string
	in    []string
	out   *[]string
}

// filter checks a registry request's page and address lists, the
// preamble every registry list shares.
func (a TokenListArgs) filter(page *store.TokenPage, lists ...addressList) error {
	var err error
	if *page, err = a.page(); err != nil {
		return err
	}
	for _, l := range lists {
		if *l.out, err = rawAddresses(l.field, l.in); err != nil {
			return err
		}
	}
	return nil
}

// JettonMastersArgs filter /api/v3/jetton/masters.
type JettonMastersArgs struct {
	Address, AdminAddress []string
	TokenListArgs
}

// JettonMasters lists jetton masters.
func (r *Resolver) JettonMasters(ctx context.Context, a JettonMastersArgs) ([]chain.JettonMaster, error) {
	var f store.JettonMasterFilter
	if err := a.filter(&f.TokenPage, addressList{"address", a.Address, &f.Addresses},
		addressList{"admin_address", a.AdminAddress, &f.Admins}); err != nil {
		return nil, err
	}
	return r.Store.JettonMasters(ctx, f)
}

// JettonWalletsArgs filter /api/v3/jetton/wallets.
type JettonWalletsArgs struct {
	Address, OwnerAddress, JettonAddress []string
	ExcludeZeroBalance                   bool
	// Sort orders by balance: "asc" or "desc"; nil none.
	Sort *string
	TokenListArgs
}

// JettonWallets lists jetton wallets.
func (r *Resolver) JettonWallets(ctx context.Context, a JettonWalletsArgs) ([]chain.JettonWallet, error) {
	var f store.JettonWalletFilter
	if err := a.filter(&f.TokenPage, addressList{"address", a.Address, &f.Addresses},
		addressList{"owner_address", a.OwnerAddress, &f.Owners},
		addressList{"jetton_address", a.JettonAddress, &f.Jettons}); err != nil {
		return nil, err
	}
	if len(f.Jettons) > 1 && len(f.Owners) != 1 {
		return nil, apperr.Field("jetton_address", "several jetton addresses need exactly one owner_address")
	}
	if a.Sort != nil {
		if *a.Sort != "asc" && *a.Sort != "desc" {
			return nil, apperr.Field("sort", "must be asc or desc")
		}
		f.SortBalance = *a.Sort
	}
	f.ExcludeZero = a.ExcludeZeroBalance
	return r.Store.JettonWallets(ctx, f)
}

// NftCollectionsArgs filter /api/v3/nft/collections.
type NftCollectionsArgs struct {
	CollectionAddress, OwnerAddress []string
	TokenListArgs
}

// NftCollections lists NFT collections.
func (r *Resolver) NftCollections(ctx context.Context, a NftCollectionsArgs) ([]chain.NftCollection, error) {
	var f store.NftCollectionFilter
	if err := a.filter(&f.TokenPage, addressList{"collection_address", a.CollectionAddress, &f.Addresses},
		addressList{"owner_address", a.OwnerAddress, &f.Owners}); err != nil {
		return nil, err
	}
	return r.Store.NftCollections(ctx, f)
}

// NftItemsArgs filter /api/v3/nft/items.
type NftItemsArgs struct {
	Address, OwnerAddress, CollectionAddress []string
	Index                                    []string
	IncludeOnSale                            bool
	// SortByLastTransactionLt orders by the items' last transaction lt,
	// newest first (toncenter's sort_by_last_transaction_lt).
	SortByLastTransactionLt bool
	TokenListArgs
}

// maxIndex is the largest NFT item index (a 256-bit unsigned integer).
var maxIndex = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// NftItems lists NFT items.
func (r *Resolver) NftItems(ctx context.Context, a NftItemsArgs) ([]chain.NftItem, error) {
	var f store.NftItemFilter
	if err := a.filter(&f.TokenPage, addressList{"address", a.Address, &f.Addresses},
		addressList{"owner_address", a.OwnerAddress, &f.Owners},
		addressList{"collection_address", a.CollectionAddress, &f.Collections}); err != nil {
		return nil, err
	}
	if len(f.Collections) > 1 && len(f.Owners) != 1 {
		return nil, apperr.Field("collection_address", "several collection addresses need exactly one owner_address")
	}
	if len(a.Index) > 0 && len(f.Collections) == 0 {
		return nil, apperr.Field("index", "is not allowed without collection_address")
	}
	if len(a.Index) > MaxTokenAddresses {
		return nil, apperr.Field("index", "%d indexes given; at most %d", len(a.Index), MaxTokenAddresses)
	}
	for _, ix := range a.Index {
		n, ok := new(big.Int).SetString(ix, 10)
		if !ok || n.Sign() < 0 || n.Cmp(maxIndex) > 0 {
			return nil, apperr.Field("index", "%q is not an item index (an integer from 0 to 2^256-1)", apperr.Excerpt(ix))
		}
		f.Indexes = append(f.Indexes, n.String())
	}
	f.IncludeOnSale, f.ByLastTxLt = a.IncludeOnSale, a.SortByLastTransactionLt
	return r.Store.NftItems(ctx, f)
}

// NftCollectionsByAddress reads the collections among addresses (raw), by
// address: an item shows its collection.
func (r *Resolver) NftCollectionsByAddress(ctx context.Context, addrs []string) (map[string]chain.NftCollection, error) {
	out := map[string]chain.NftCollection{}
	if len(addrs) == 0 {
		return out, nil
	}
	list, err := r.Store.NftCollections(ctx, store.NftCollectionFilter{Addresses: addrs,
		TokenPage: store.TokenPage{Limit: len(addrs)}})
	if err != nil {
		return nil, err
	}
	for _, c := range list {
		out[c.Address] = c
	}
	return out, nil
}
