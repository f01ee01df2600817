package resolvers

import (
	"context"
	"math"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// Token moves: toncenter's /jetton/transfers, /jetton/burns and
// /nft/transfers, the transfer and burn requests of stored transactions
// (chain.TokenMove, store.TokenMoves).

// MoveArgs are the bounds, paging and order every move list takes.
type MoveArgs struct {
	StartUtime, EndUtime *uint64
	StartLt, EndLt       *uint64
	// Sort is "asc" or "desc" (the default).
	Sort *string
	TokenListArgs
}

// filter checks the bounds and paging into a store filter for kind.
func (a MoveArgs) filter(kind string) (store.MoveFilter, error) {
	f := store.MoveFilter{Kind: kind}
	p, err := a.page()
	if err != nil {
		return f, err
	}
	f.Limit, f.Offset = p.Limit, p.Offset
	if a.Sort != nil {
		if *a.Sort != "asc" && *a.Sort != "desc" {
			return f, apperr.Field("sort", "must be asc or desc")
		}
		f.Asc = *a.Sort == "asc"
	}
	for _, b := range []struct {
		name string
		v    *uint64
		dst  **uint32
	}{{"start_utime", a.StartUtime, &f.StartUtime}, {"end_utime", a.EndUtime, &f.EndUtime}} {
		if b.v == nil {
			continue
		}
		if *b.v > math.MaxUint32 {
			return f, apperr.Field(b.name, "must be from 0 to %d", uint32(math.MaxUint32))
		}
		u := uint32(*b.v)
		*b.dst = &u
	}
	if f.StartUtime != nil && f.EndUtime != nil && *f.StartUtime > *f.EndUtime {
		return f, apperr.Field("start_utime", "must not be greater than end_utime")
	}
	for _, b := range []struct {
		name string
		v    *uint64
	}{{"start_lt", a.StartLt}, {"end_lt", a.EndLt}} {
		if b.v != nil && *b.v > math.MaxInt64 {
			return f, apperr.Field(b.name, "must be at most %d", int64(math.MaxInt64))
		}
	}
	f.StartLt, f.EndLt = a.StartLt, a.EndLt
	if f.StartLt != nil && f.EndLt != nil && *f.StartLt > *f.EndLt {
		return f, apperr.Field("start_lt", "must not be greater than end_lt")
	}
	return f, nil
}

// ownerDirection reads direction ("in", "out", "both"; nil is both). As
// on toncenter it applies to owners only, and without them changes nothing.
func ownerDirection(direction *string, owners []string) (int, error) {
	if direction == nil || *direction == "both" {
		return store.OwnerEither, nil
	}
	if *direction != "in" && *direction != "out" {
		return 0, apperr.Field("direction", "must be in, out or both")
	}
	if *direction == "in" {
		return store.OwnerIn, nil
	}
	return store.OwnerOut, nil
}

// moveFilter checks the owners, contracts and master of a move list.
func moveFilter(f *store.MoveFilter, owners []string, contractField string, contracts []string,
	masterField string, master *string) error {
	var err error
	if f.Owners, err = rawAddresses("owner_address", owners); err != nil {
		return err
	}
	if f.Contracts, err = rawAddresses(contractField, contracts); err != nil {
		return err
	}
	if master != nil {
		m, err := rawAddresses(masterField, []string{*master})
		if err != nil {
			return err
		}
		f.Master = m[0]
	}
	return nil
}

// JettonTransfersArgs filter /api/v3/jetton/transfers.
type JettonTransfersArgs struct {
	OwnerAddress, JettonWallet []string
	JettonMaster, Direction    *string
	MoveArgs
}

// JettonTransfers lists jetton transfer requests.
func (r *Resolver) JettonTransfers(ctx context.Context, a JettonTransfersArgs) ([]chain.TokenMove, error) {
	f, err := a.filter(chain.MoveJettonTransfer)
	if err != nil {
		return nil, err
	}
	if err = moveFilter(&f, a.OwnerAddress, "jetton_wallet", a.JettonWallet, "jetton_master", a.JettonMaster); err != nil {
		return nil, err
	}
	if f.Direction, err = ownerDirection(a.Direction, f.Owners); err != nil {
		return nil, err
	}
	return r.Store.TokenMoves(ctx, f)
}

// JettonBurnsArgs filter /api/v3/jetton/burns.
type JettonBurnsArgs struct {
	OwnerAddress, JettonWallet []string
	JettonMaster               *string
	MoveArgs
}

// JettonBurns lists jetton burn requests.
func (r *Resolver) JettonBurns(ctx context.Context, a JettonBurnsArgs) ([]chain.TokenMove, error) {
	f, err := a.filter(chain.MoveJettonBurn)
	if err != nil {
		return nil, err
	}
	if err = moveFilter(&f, a.OwnerAddress, "jetton_wallet", a.JettonWallet, "jetton_master", a.JettonMaster); err != nil {
		return nil, err
	}
	f.Direction = store.OwnerOut // a burn's owner is who asked
	return r.Store.TokenMoves(ctx, f)
}

// NftTransfersArgs filter /api/v3/nft/transfers.
type NftTransfersArgs struct {
	OwnerAddress, ItemAddress    []string
	CollectionAddress, Direction *string
	MoveArgs
}

// NftTransfers lists NFT transfer requests.
func (r *Resolver) NftTransfers(ctx context.Context, a NftTransfersArgs) ([]chain.TokenMove, error) {
	f, err := a.filter(chain.MoveNftTransfer)
	if err != nil {
		return nil, err
	}
	if err = moveFilter(&f, a.OwnerAddress, "item_address", a.ItemAddress, "collection_address", a.CollectionAddress); err != nil {
		return nil, err
	}
	if f.Direction, err = ownerDirection(a.Direction, f.Owners); err != nil {
		return nil, err
	}
	return r.Store.TokenMoves(ctx, f)
}
