package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// Getgems sale and auction contracts, by the hash of their code (base64),
// with the storage layout of each version. Hashes and layouts as toncenter's
// indexer knows them (indexer/events/blocks/messages/getgems.py), layouts
// checked against getgems-io/nft-contracts (nft-fixprice-sale-*.fc,
// nft-auction-*).
var getgemsSaleVersions = map[string]string{
	"2pufziLofEllctIDZSWVebzO+RpyA1fMvowFLvyb4I8=": "v1",
	"gnj0xSM95vvtyWmvUZNEp6m//FRIVtuphqlcC8+Fcck=": "v2",
	"MgUN+sRPZIZrzIbyzZ4TBf6dyts5WcACI3z7CQLUQyM=": "v3",
	"3rU7bFdlwebNI4v0e8XoO6WWvcwEsLhM1Qqx5HSgjzE=": "v3r2",
	"JCIfpXHlQuBVx3vt/b9SfHr0YM/cfzRMRQeHtM+h600=": "v3r3",
	"a5WmQYucnSNZBF0edVm41UmuDlBvJMqrWPowyPsf64Y=": "v4r1",
}

var getgemsAuctionVersions = map[string]string{
	"/ACindAgW83MDT/7nKOMw8jBWexg2KpUMkCpLxBZLUA=": "v1",
	"ZmiHL6eXBUQ//UdSPo6eqfdquZ+aC1nSfej4GhwnudQ=": "v2",
	"G9nFo5v/t6DzQViLXdkrgTqEK/Ze8UEJOCIAzq+Pct8=": "v3r2",
	"u29ireD+stefqzuK6/CTCvmFU99gCTsgJ/Covxab/Ow=": "v3r3",
	"zlp4U06qps7tja/UhtB262CpsNbb+1Nnb2YmScBomVY=": "v4r1",
}

// getgemsSale is a fixed-price sale's initial data.
type getgemsSale struct {
	market, owner, nft     string
	fullPrice              BigInt
	feeAddress, royaltyTo  string
	fee, royalty           BigInt
	feePercent, royaltyPct *int64 // v4: per 100000
}

// getgemsAuction is an auction's initial data.
type getgemsAuction struct {
	market, owner              string
	feeAddress, royaltyTo      string
	feeFactor, feeBase         BigInt
	royaltyFactor, royaltyBase BigInt
	minBid, maxBid, minStep    BigInt
	endTime, stepTime          *int64
}

// getgemsKind tells a deployed contract's kind and version: by its code
// hash, else by what the indexer knows of it (toncenter then assumes the
// latest layout: v4r1 sales, v3r3 auctions).
func getgemsKind(si stateInit, k chain.KnownContract, known bool) (kind, version string) {
	h := si.codeHash()
	if v, ok := getgemsSaleVersions[h]; ok {
		return chain.KindNftSale, v
	}
	if v, ok := getgemsAuctionVersions[h]; ok {
		return chain.KindNftAuction, v
	}
	switch {
	case known && k.Kind == chain.KindNftSale:
		return chain.KindNftSale, "v4r1"
	case known && k.Kind == chain.KindNftAuction:
		return chain.KindNftAuction, "v3r3"
	}
	return "", ""
}

func coins(v tlb.VarUInteger16) BigInt { return amount(v) }

func u32(v uint32) *int64 { x := int64(v); return &x }

// parseGetgemsSale reads a sale's data by version.
func parseGetgemsSale(data *boc.Cell, version string) (getgemsSale, bool) {
	var s getgemsSale
	switch version {
	case "v4r1":
		var v struct {
			Complete  tlb.Uint1
			Market    tlb.MsgAddress
			Owner     tlb.MsgAddress
			FullPrice tlb.VarUInteger16
			SoldAt    uint32
			QueryID   uint64
			Static    struct {
				FeeAddress tlb.MsgAddress
				Royalty    tlb.MsgAddress
				FeePct     tlb.Uint17
				RoyaltyPct tlb.Uint17
				Nft        tlb.MsgAddress
			} `tlb:"^"`
		}
		if !unmarshalCell(data, &v) {
			return s, false
		}
		s.market, s.owner, s.nft, s.fullPrice = addr(v.Market), addr(v.Owner), addr(v.Static.Nft), coins(v.FullPrice)
		s.feeAddress, s.royaltyTo = addr(v.Static.FeeAddress), addr(v.Static.Royalty)
		s.feePercent, s.royaltyPct = u32(uint32(v.Static.FeePct)), u32(uint32(v.Static.RoyaltyPct))
		// The contract pays muldiv(price, percent, 100000), nothing to an
		// absent fee or royalty address (nft-fixprice-sale-v4r1.fc
		// buy_logic).
		price, _ := new(big.Int).SetString(string(s.fullPrice), 10)
		if price != nil {
			pct := func(to string, p int64) BigInt {
				if to == "" {
					return "0"
				}
				x := new(big.Int).Mul(price, big.NewInt(p))
				return BigInt(x.Div(x, big.NewInt(100000)).String())
			}
			s.fee = pct(s.feeAddress, *s.feePercent)
			s.royalty = pct(s.royaltyTo, *s.royaltyPct)
		}
		return s, true
	case "v1":
		var v struct {
			Market    tlb.MsgAddress
			Nft       tlb.MsgAddress
			Owner     tlb.MsgAddress
			FullPrice tlb.VarUInteger16
			Fees      struct {
				Fee        tlb.VarUInteger16
				FeeAddress tlb.MsgAddress
				Royalty    tlb.MsgAddress
				RoyaltyAmt tlb.VarUInteger16
			} `tlb:"^"`
		}
		if !unmarshalCell(data, &v) {
			return s, false
		}
		s.market, s.nft, s.owner, s.fullPrice = addr(v.Market), addr(v.Nft), addr(v.Owner), coins(v.FullPrice)
		s.fee, s.feeAddress, s.royaltyTo, s.royalty = coins(v.Fees.Fee), addr(v.Fees.FeeAddress), addr(v.Fees.Royalty), coins(v.Fees.RoyaltyAmt)
		return s, true
	case "v2", "v3", "v3r2", "v3r3":
		var v struct {
			Complete  tlb.Uint1
			CreatedAt uint32
			Market    tlb.MsgAddress
			Nft       tlb.MsgAddress
			Owner     tlb.MsgAddress
			FullPrice tlb.VarUInteger16
			Fees      struct {
				FeeAddress tlb.MsgAddress
				Fee        tlb.VarUInteger16
				Royalty    tlb.MsgAddress
				RoyaltyAmt tlb.VarUInteger16
			} `tlb:"^"`
		}
		if !unmarshalCell(data, &v) {
			return s, false
		}
		s.market, s.nft, s.owner, s.fullPrice = addr(v.Market), addr(v.Nft), addr(v.Owner), coins(v.FullPrice)
		s.fee, s.feeAddress, s.royaltyTo, s.royalty = coins(v.Fees.Fee), addr(v.Fees.FeeAddress), addr(v.Fees.Royalty), coins(v.Fees.RoyaltyAmt)
		return s, true
	}
	return s, false
}

// parseGetgemsAuction reads an auction's data by version.
func parseGetgemsAuction(data *boc.Cell, version string) (getgemsAuction, bool) {
	var a getgemsAuction
	type feesV1 struct {
		FeeAddress    tlb.MsgAddress
		FeeFactor     uint32
		FeeBase       uint32
		Royalty       tlb.MsgAddress
		RoyaltyFactor uint32
		RoyaltyBase   uint32
	}
	setFees := func(f feesV1) {
		a.feeAddress, a.royaltyTo = addr(f.FeeAddress), addr(f.Royalty)
		a.feeFactor, a.feeBase = nano(uint64(f.FeeFactor)), nano(uint64(f.FeeBase))
		a.royaltyFactor, a.royaltyBase = nano(uint64(f.RoyaltyFactor)), nano(uint64(f.RoyaltyBase))
	}
	switch version {
	case "v1":
		var v struct {
			Fees feesV1 `tlb:"^"`
			Bids struct {
				MinBid   tlb.VarUInteger16
				MaxBid   tlb.VarUInteger16
				MinStep  tlb.VarUInteger16
				EndTime  uint32
				StepTime uint32
			} `tlb:"^"`
		}
		if !unmarshalCell(data, &v) {
			return a, false
		}
		setFees(v.Fees)
		a.minBid, a.maxBid, a.minStep = coins(v.Bids.MinBid), coins(v.Bids.MaxBid), coins(v.Bids.MinStep)
		a.endTime, a.stepTime = u32(v.Bids.EndTime), u32(v.Bids.StepTime)
		return a, true
	case "v3r2":
		var v struct {
			Flags      tlb.Uint3
			LastMember tlb.MsgAddress
			LastBid    tlb.VarUInteger16
			LastBidAt  uint32
			EndTime    uint32
			Fees       feesV1 `tlb:"^"`
			Constant   struct {
				SubGas   uint32
				Market   tlb.MsgAddress
				MinBid   tlb.VarUInteger16
				MaxBid   tlb.VarUInteger16
				MinStep  tlb.VarUInteger16
				StepTime uint32
			} `tlb:"^"`
		}
		if !unmarshalCell(data, &v) {
			return a, false
		}
		setFees(v.Fees)
		a.market = addr(v.Constant.Market)
		a.minBid, a.maxBid, a.minStep = coins(v.Constant.MinBid), coins(v.Constant.MaxBid), coins(v.Constant.MinStep)
		a.endTime, a.stepTime = u32(v.EndTime), u32(v.Constant.StepTime)
		return a, true
	case "v3r3":
		var v struct {
			Flags         tlb.Uint2
			LastMember    tlb.MsgAddress
			LastBid       tlb.VarUInteger16
			LastBidAt     uint32
			EndTime       uint32
			Owner         tlb.MsgAddress
			LastQueryID   uint64
			FeeFactor     uint32
			FeeBase       uint32
			RoyaltyFactor uint32
			RoyaltyBase   uint32
			Fees          struct {
				FeeAddress tlb.MsgAddress
				Royalty    tlb.MsgAddress
			} `tlb:"^"`
			Constant struct {
				Market   tlb.MsgAddress
				MinBid   tlb.VarUInteger16
				MaxBid   tlb.VarUInteger16
				MinStep  tlb.VarUInteger16
				StepTime uint32
			} `tlb:"^"`
		}
		if !unmarshalCell(data, &v) {
			return a, false
		}
		setFees(feesV1{FeeAddress: v.Fees.FeeAddress, FeeFactor: v.FeeFactor, FeeBase: v.FeeBase,
			Royalty: v.Fees.Royalty, RoyaltyFactor: v.RoyaltyFactor, RoyaltyBase: v.RoyaltyBase})
		a.owner, a.market = addr(v.Owner), addr(v.Constant.Market)
		a.minBid, a.maxBid, a.minStep = coins(v.Constant.MinBid), coins(v.Constant.MaxBid), coins(v.Constant.MinStep)
		a.endTime, a.stepTime = u32(v.EndTime), u32(v.Constant.StepTime)
		return a, true
	case "v4r1":
		var v struct {
			Flags       tlb.Uint2
			LastMember  tlb.MsgAddress
			LastBid     tlb.VarUInteger16
			LastBidAt   uint32
			EndTime     uint32
			Owner       tlb.MsgAddress
			LastQueryID uint64
			Fees        struct {
				FeeAddress    tlb.MsgAddress
				Royalty       tlb.MsgAddress
				FeeFactor     uint32
				FeeBase       uint32
				RoyaltyFactor uint32
				RoyaltyBase   uint32
			} `tlb:"^"`
			Constant struct {
				Market   tlb.MsgAddress
				MinBid   tlb.VarUInteger16
				MaxBid   tlb.VarUInteger16
				MinStep  tlb.Uint7
				StepTime tlb.Uint17
			} `tlb:"^"`
		}
		if !unmarshalCell(data, &v) {
			return a, false
		}
		f := v.Fees
		setFees(feesV1{FeeAddress: f.FeeAddress, FeeFactor: f.FeeFactor, FeeBase: f.FeeBase,
			Royalty: f.Royalty, RoyaltyFactor: f.RoyaltyFactor, RoyaltyBase: f.RoyaltyBase})
		a.owner, a.market = addr(v.Owner), addr(v.Constant.Market)
		a.minBid, a.maxBid, a.minStep = coins(v.Constant.MinBid), coins(v.Constant.MaxBid), nano(uint64(v.Constant.MinStep))
		a.endTime, a.stepTime = u32(v.EndTime), u32(uint32(v.Constant.StepTime))
		return a, true
	}
	return a, false
}
