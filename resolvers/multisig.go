package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// MultisigArgs filter /api/v3/multisig/wallets.
type MultisigArgs struct {
	Address, WalletAddress []string
	// Sort orders by last transaction lt: "asc" or "desc" (nil: desc).
	Sort *string
	TokenListArgs
}

// Multisigs lists multisig v2 wallets.
func (r *Resolver) Multisigs(ctx context.Context, a MultisigArgs) ([]chain.Multisig, error) {
	if len(a.Address) == 0 && len(a.WalletAddress) == 0 {
		return nil, apperr.Field("address", "at least one of address or wallet_address is required")
	}
	var f store.MultisigFilter
	if err := a.filter(&f.TokenPage, addressList{"address", a.Address, &f.Addresses},
		addressList{"wallet_address", a.WalletAddress, &f.Wallets}); err != nil {
		return nil, err
	}
	if a.Sort != nil {
		if *a.Sort != "asc" && *a.Sort != "desc" {
			return nil, apperr.Field("sort", "must be asc or desc")
		}
		f.Asc = *a.Sort == "asc"
	}
	return r.Store.Multisigs(ctx, f)
}
