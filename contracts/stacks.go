package contracts

import (
	"fmt"
	"math/big"

	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/getmethod"
)

// saleData reads the reference fixed-price sale's get_sale_data (TON's
// nft-fixprice-sale, seven values): marketplace, nft, owner, full_price,
// marketplace_fee, royalty_address, royalty_amount. Getgems' later sales
// answer eleven values (a "FIXPRICE" magic, is_complete, created_at
// first) and its auctions twenty: not read (no code of theirs to test
// against here; docs/API-NOTES.md).
func saleData(s tlb.VmStack) (out chain.NftSale, ok bool) {
	if s.Len() != 7 {
		return out, false
	}
	market, ok1 := getmethod.Address(s.PeekBottom(0))
	nft, ok2 := getmethod.Address(s.PeekBottom(1))
	owner, ok3 := getmethod.Address(s.PeekBottom(2))
	price, ok4 := getmethod.Int(s.PeekBottom(3))
	fee, ok5 := getmethod.Int(s.PeekBottom(4))
	royaltyTo, ok6 := getmethod.Address(s.PeekBottom(5))
	royalty, ok7 := getmethod.Int(s.PeekBottom(6))
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 || nft == "" || price.Sign() < 0 || fee.Sign() < 0 || royalty.Sign() < 0 {
		return out, false
	}
	return chain.NftSale{Nft: nft, Seller: owner, Marketplace: market, FullPrice: price.String(),
		MarketplaceFee: fee.String(), RoyaltyAddress: royaltyTo, RoyaltyAmount: royalty.String()}, true
}

// vestingData reads get_vesting_data (TON's vesting wallet): start time,
// total duration, unlock period, cliff, total amount, sender, owner,
// whitelist dictionary.
func vestingData(s tlb.VmStack) (v chain.Vesting, ok bool) {
	if s.Len() < 7 {
		return v, false
	}
	var ints [5]*big.Int
	for i := range ints {
		n, ok := getmethod.Int(s.PeekBottom(i))
		if !ok || n.Sign() < 0 || (i < 4 && !n.IsInt64()) {
			return v, false
		}
		ints[i] = n
	}
	sender, ok1 := getmethod.Address(s.PeekBottom(5))
	owner, ok2 := getmethod.Address(s.PeekBottom(6))
	if !ok1 || !ok2 {
		return v, false
	}
	return chain.Vesting{StartTime: ints[0].Int64(), TotalDuration: ints[1].Int64(), UnlockPeriod: ints[2].Int64(),
		Cliff: ints[3].Int64(), TotalAmount: ints[4].String(), Sender: sender, Owner: owner}, true
}

// whitelist reads get_whitelist: a list (nested pairs ending in null) of
// [workchain, address hash] tuples.
func whitelist(s tlb.VmStack) (out []string, ok bool) {
	if s.Len() != 1 {
		return nil, false
	}
	v := s.PeekBottom(0)
	for steps := 0; v.SumType != "VmStkNull"; steps++ {
		if v.SumType != "VmStkTuple" || steps > 1<<12 {
			return nil, false
		}
		pair, ok := pairOf(v)
		if !ok || pair[0].SumType != "VmStkTuple" {
			return nil, false
		}
		addr, ok := pairOf(pair[0])
		if !ok {
			return nil, false
		}
		wc, ok1 := getmethod.Int(addr[0])
		hash, ok2 := getmethod.Int(addr[1])
		if !ok1 || !ok2 || !wc.IsInt64() || hash.Sign() < 0 || hash.BitLen() > 256 {
			return nil, false
		}
		out = append(out, fmt.Sprintf("%d:%064X", wc.Int64(), hash))
		v = pair[1]
	}
	return out, true
}

// pairOf is the two entries of a tuple of two.
func pairOf(v tlb.VmStackValue) ([]tlb.VmStackValue, bool) {
	t := v.VmStkTuple
	if v.SumType != "VmStkTuple" || t.Len != 2 || t.Data == nil {
		return nil, false
	}
	items, err := t.Data.RecursiveToSlice(2)
	return items, err == nil && len(items) == 2
}
