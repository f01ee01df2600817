package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
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
	var err error
	if f.Asc, err = ascending(a.Sort); err != nil {
		return nil, err
	}
	return r.Store.Multisigs(ctx, f)
}

// OrderArgs filter /api/v3/multisig/orders.
type OrderArgs struct {
	Address, MultisigAddress []string
	// Sort orders by last transaction lt: "asc" or "desc" (nil: desc).
	Sort *string
	TokenListArgs
}

// MultisigOrders lists multisig v2 orders.
func (r *Resolver) MultisigOrders(ctx context.Context, a OrderArgs) ([]chain.MultisigOrder, error) {
	if len(a.Address) == 0 && len(a.MultisigAddress) == 0 {
		return nil, apperr.Field("address", "at least one of address or multisig_address is required")
	}
	var f store.OrderFilter
	if err := a.filter(&f.TokenPage, addressList{"address", a.Address, &f.Addresses},
		addressList{"multisig_address", a.MultisigAddress, &f.Multisigs}); err != nil {
		return nil, err
	}
	var err error
	if f.Asc, err = ascending(a.Sort); err != nil {
		return nil, err
	}
	return r.Store.MultisigOrders(ctx, f)
}

// OrdersOf are the orders of multisigs by multisig, oldest first (the
// wallets' include_orders). An answer holds at most cost.MaxRows rows:
// wallets with more orders than that are refused naming include_orders.
func (r *Resolver) OrdersOf(ctx context.Context, multisigs []chain.Multisig) (map[string][]chain.MultisigOrder, error) {
	addrs := make([]string, len(multisigs))
	for i, m := range multisigs {
		addrs[i] = m.Address
	}
	room := cost.MaxRows - len(multisigs)
	list, err := r.Store.OrdersOf(ctx, addrs, room+1)
	if err != nil {
		return nil, err
	}
	if len(list) > room {
		return nil, apperr.Field("include_orders", "these %d multisigs have more than %d orders, over an answer's %d rows: "+
			"set include_orders=false and page through /api/v3/multisig/orders?multisig_address=", len(multisigs), room, cost.MaxRows)
	}
	out := map[string][]chain.MultisigOrder{}
	for _, o := range list {
		out[o.Multisig] = append(out[o.Multisig], o)
	}
	return out, nil
}

// ascending reads a sort parameter: "asc" or "desc" (nil: desc).
func ascending(sort *string) (bool, error) {
	if sort == nil {
		return false, nil
	}
	if *sort != "asc" && *sort != "desc" {
		return false, apperr.Field("sort", "must be asc or desc")
	}
	return *sort == "asc", nil
}
