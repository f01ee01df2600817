package actions

import (
	"strings"

	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// NftPutOnSale: an owner listed an item on a Getgems fixed-price sale.
type NftPutOnSale struct {
	Owner                 Address `json:"owner,omitempty" role:"sender" tc:"owner" doc:"the owner who listed the item"`
	Listing               Address `json:"listing,omitempty" tc:"listing_address" doc:"the marketplace contract the owner handed the item to, which deployed the sale"`
	SaleContract          Address `json:"sale_contract,omitempty" role:"recipient" tc:"sale_address" doc:"the new sale contract, which now holds the item"`
	Nft                   Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the NFT item"`
	Collection            Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex              BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item, when known"`
	Marketplace           Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace the sale belongs to"`
	MarketplaceName       Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"getgems"`
	FullPrice             BigInt  `json:"full_price,omitempty" tc:"full_price" doc:"nanotons a buyer pays"`
	MarketplaceFee        BigInt  `json:"marketplace_fee,omitempty" tc:"marketplace_fee" doc:"nanotons of the price going to the marketplace (v4 sales: from the fee percent)"`
	MarketplaceFeeAddress Address `json:"marketplace_fee_address,omitempty" tc:"marketplace_fee_address" doc:"who receives the marketplace fee"`
	RoyaltyAmount         BigInt  `json:"royalty_amount,omitempty" tc:"royalty_amount" doc:"nanotons of the price going to the collection's royalty address (v4 sales: from the royalty percent)"`
	RoyaltyAddress        Address `json:"royalty_address,omitempty" tc:"royalty_address" doc:"who receives the royalty"`
	MarketplaceFeePercent *int64  `json:"marketplace_fee_percent,omitempty" doc:"v4 sales: the marketplace fee in 1/100000 of the price"`
	RoyaltyPercent        *int64  `json:"royalty_percent,omitempty" doc:"v4 sales: the royalty in 1/100000 of the price"`
	Version               Text    `json:"version,omitempty" doc:"the sale contract's version (v1 ... v4r1), by its code"`
}

// NftPutOnAuction: an owner put an item up for a Getgems auction.
type NftPutOnAuction struct {
	Owner                 Address `json:"owner,omitempty" role:"sender" tc:"owner" doc:"the owner who listed the item"`
	Listing               Address `json:"listing,omitempty" tc:"listing_address" doc:"the marketplace contract the owner handed the item to, which deployed the auction"`
	AuctionContract       Address `json:"auction_contract,omitempty" role:"recipient" tc:"auction_address" doc:"the new auction contract, which now holds the item"`
	Nft                   Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the NFT item"`
	Collection            Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex              BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item, when known"`
	Marketplace           Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace the auction belongs to"`
	MarketplaceName       Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"getgems"`
	MarketplaceFeeAddress Address `json:"marketplace_fee_address,omitempty" tc:"marketplace_fee_address" doc:"who receives the marketplace fee"`
	MarketplaceFeeFactor  BigInt  `json:"marketplace_fee_factor,omitempty" tc:"marketplace_fee_factor" doc:"the marketplace fee is the winning bid * factor / base"`
	MarketplaceFeeBase    BigInt  `json:"marketplace_fee_base,omitempty" tc:"marketplace_fee_base" doc:"see marketplace_fee_factor"`
	RoyaltyAddress        Address `json:"royalty_address,omitempty" tc:"royalty_address" doc:"who receives the royalty"`
	RoyaltyFeeFactor      BigInt  `json:"royalty_fee_factor,omitempty" doc:"the royalty is the winning bid * factor / base"`
	RoyaltyFeeBase        BigInt  `json:"royalty_fee_base,omitempty" tc:"royalty_fee_base" doc:"see royalty_fee_factor"`
	MinBid                BigInt  `json:"min_bid,omitempty" tc:"min_bid" doc:"nanotons of the least first bid"`
	MaxBid                BigInt  `json:"max_bid,omitempty" tc:"max_bid" doc:"nanotons of the bid that ends the auction at once (0: none)"`
	MinStep               BigInt  `json:"min_step,omitempty" doc:"the least raise of a bid (nanotons; v4: percent)"`
	EndTime               *int64  `json:"end_time,omitempty" doc:"unix time the auction ends, unless bids extend it"`
	StepTime              *int64  `json:"step_time,omitempty" doc:"seconds a late bid extends the auction by"`
	Version               Text    `json:"version,omitempty" doc:"the auction contract's version (v1 ... v4r1), by its code"`
}

// NftUpdateSale: the owner changed a Getgems sale's price and fees.
type NftUpdateSale struct {
	Sender          Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the change (the owner)"`
	SaleContract    Address `json:"sale_contract,omitempty" role:"contract" tc:"sale_contract" doc:"the sale contract"`
	Nft             Address `json:"nft,omitempty" tc:"nft_address" doc:"the item on sale, when known"`
	Marketplace     Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace the sale belongs to, when known"`
	MarketplaceName Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"getgems, when the sale is known"`
	FullPrice       BigInt  `json:"full_price,omitempty" tc:"full_price" doc:"the new price, nanotons"`
	MarketplaceFee  BigInt  `json:"marketplace_fee,omitempty" tc:"marketplace_fee" doc:"the new marketplace fee, nanotons"`
	RoyaltyAmount   BigInt  `json:"royalty_amount,omitempty" tc:"royalty_amount" doc:"the new royalty, nanotons"`
	QueryID         BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
}

// NftCancelSale: a Getgems sale was cancelled and gave the item back.
type NftCancelSale struct {
	Owner           Address `json:"owner,omitempty" role:"sender" tc:"owner" doc:"the owner the item went back to"`
	SaleContract    Address `json:"sale_contract,omitempty" role:"contract" tc:"sale_address" doc:"the sale contract"`
	Nft             Address `json:"nft,omitempty" tc:"nft_item" doc:"the NFT item"`
	Collection      Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	Marketplace     Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace the sale belongs to, when known"`
	MarketplaceName Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"getgems, when the sale is known"`
	Canceller       Address `json:"canceller,omitempty" doc:"who sent the cancel request (the owner or the marketplace)"`
	QueryID         BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
}

// NftCancelAuction: a Getgems auction was cancelled and gave the item back.
type NftCancelAuction struct {
	Owner           Address `json:"owner,omitempty" role:"sender" tc:"owner" doc:"the owner the item went back to"`
	AuctionContract Address `json:"auction_contract,omitempty" role:"contract" tc:"auction_address" doc:"the auction contract"`
	Nft             Address `json:"nft,omitempty" tc:"nft_item" doc:"the NFT item"`
	Collection      Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	Marketplace     Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace the auction belongs to, when known"`
	MarketplaceName Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"getgems"`
	Canceller       Address `json:"canceller,omitempty" doc:"who sent the cancel request"`
}

// NftFinishAuction: a Getgems auction was finished: the item went to the
// winner (or back to the owner when nobody bid).
type NftFinishAuction struct {
	Owner           Address `json:"owner,omitempty" role:"recipient" tc:"owner" doc:"who got the item: the winner, or the owner when nobody bid"`
	AuctionContract Address `json:"auction_contract,omitempty" role:"contract" tc:"auction_address" doc:"the auction contract"`
	Nft             Address `json:"nft,omitempty" tc:"nft_item" doc:"the NFT item"`
	Collection      Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	Marketplace     Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace the auction belongs to, when known"`
	MarketplaceName Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"getgems"`
	Finisher        Address `json:"finisher,omitempty" role:"sender" doc:"who sent the finish (or stop) request"`
}

// AuctionBid: a bid on an auction: a Getgems auction contract, a Telemint
// item's auction (Fragment), a .ton DNS item's auction.
type AuctionBid struct {
	Bidder      Address `json:"bidder,omitempty" role:"sender" tc:"bidder" doc:"who bid"`
	Auction     Address `json:"auction,omitempty" role:"contract" tc:"auction" doc:"the auction contract (the item itself for Telemint and DNS auctions)"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons bid"`
	Nft         Address `json:"nft,omitempty" tc:"nft_item" doc:"the item auctioned, when known"`
	Collection  Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex    BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item, when known"`
	AuctionType Text    `json:"auction_type,omitempty" tc:"marketplace" doc:"getgems, fragment (Telemint items) or dns (.ton domains), when known"`
	Domain      Text    `json:"domain,omitempty" doc:"for a .ton domain's auction: the domain, when the indexer knows it"`
}

// AuctionOutbid: an auction paid a bid back to a bidder someone outbid.
type AuctionOutbid struct {
	Auction     Address `json:"auction,omitempty" role:"sender" tc:"auction_address" doc:"the auction contract (the item itself for Telemint and DNS auctions)"`
	Bidder      Address `json:"bidder,omitempty" role:"recipient" tc:"bidder" doc:"the outbid bidder, paid back"`
	NewBidder   Address `json:"new_bidder,omitempty" tc:"new_bidder" doc:"whose bid outbid them"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons paid back"`
	Nft         Address `json:"nft,omitempty" tc:"nft_item" doc:"the item auctioned, when known"`
	Collection  Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	Comment     Text    `json:"comment,omitempty" tc:"comment" doc:"the payback's comment (Getgems)"`
	AuctionType Text    `json:"auction_type,omitempty" tc:"marketplace" doc:"getgems, fragment or dns, when known"`
}

// Getgems auction commands: the text comments, and op codes as toncenter
// lists them (crc32 of the words).
const (
	opAuctionCancel = 0x5616c572
	opAuctionFinish = 0x20c9eb18
	opAuctionStop   = 0xb95616b6
	opSaleCancel    = 3          // cancel query_id:uint64 (fixed-price sales)
	opSaleUpdate    = 0x6c6c2080 // change price query_id:uint64 full_price mp_fee royalty (sale v3r3)
)

// getgemsOutbidText starts the comment a Getgems auction pays an outbid bid
// back with.
const getgemsOutbidText = "Your bid has been outbid by another user"

func init() {
	declare(
		Type{Value: NftPutOnSale{}, Title: "NFT put on sale", Describe: describeAs(func(v *NftPutOnSale, w *Words) string {
			return "Put " + w.NFT(v.Nft, v.Collection) + " on sale for " + w.TON(v.FullPrice) + w.on(v.MarketplaceName)
		}),
			Toncenter: "nft_put_on_sale", Protocols: "Getgems fixed-price sales",
			Doc:     "The owner transfers the item to a marketplace contract, which deploys a sale contract and transfers the item on to it; terms are read from the sale's initial data (by its code version). The two item transfers are also NftItemTransfers.",
			Failed:  "an item transfer or the sale's deploy failed",
			Differs: "toncenter never marks it failed"},
		Type{Value: NftPutOnAuction{}, Title: "NFT put on auction", Describe: describeAs(func(v *NftPutOnAuction, w *Words) string {
			return "Put " + w.NFT(v.Nft, v.Collection) + " on auction from " + w.TON(v.MinBid) + w.on(v.MarketplaceName)
		}),
			Toncenter: "nft_put_on_auction", Protocols: "Getgems auctions",
			Doc:     "Like NftPutOnSale, with an auction contract.",
			Failed:  "an item transfer or the auction's deploy failed",
			Differs: "toncenter never marks it failed"},
		Type{Value: NftUpdateSale{}, Title: "NFT sale updated", Describe: describeAs(func(v *NftUpdateSale, w *Words) string {
			return "Changed the price of " + w.NFT(v.Nft, "") + " to " + w.TON(v.FullPrice) + w.on(v.MarketplaceName)
		}),
			Toncenter: "nft_update_sale", Protocols: "Getgems fixed-price sales (v3r3)",
			Doc:     "The owner's change-price request (0x6c6c2080) at the sale.",
			Failed:  "the sale rejected it",
			Differs: "toncenter needs the indexer to know the sale"},
		Type{Value: NftCancelSale{}, Title: "NFT sale cancelled", Describe: describeAs(func(v *NftCancelSale, w *Words) string {
			return "Cancelled the sale of " + w.NFT(v.Nft, v.Collection) + w.on(v.MarketplaceName)
		}),
			Toncenter: "nft_cancel_sale", Protocols: "Getgems fixed-price sales",
			Doc:     "cancel (op 3) at the sale, which transfers the item back (that transfer is an NftItemTransfer of its own).",
			Failed:  "the sale or the item's transfer failed",
			Differs: "toncenter needs the indexer to know the sale and never marks it failed"},
		Type{Value: NftCancelAuction{}, Title: "NFT auction cancelled", Describe: describeAs(func(v *NftCancelAuction, w *Words) string {
			return "Cancelled the auction of " + w.NFT(v.Nft, v.Collection) + w.on(v.MarketplaceName)
		}),
			Toncenter: "nft_cancel_auction", Protocols: "Getgems auctions",
			Doc:     "cancel (comment or op 0x5616c572) at a known auction, which transfers the item back to its owner.",
			Failed:  "the auction or the item's transfer failed",
			Differs: "toncenter never marks it failed"},
		Type{Value: NftFinishAuction{}, Title: "NFT auction finished", Describe: describeAs(func(v *NftFinishAuction, w *Words) string {
			return "Finished the auction of " + w.NFT(v.Nft, v.Collection) + w.on(v.MarketplaceName)
		}),
			Toncenter: "nft_finish_auction", Protocols: "Getgems auctions",
			Doc:     "finish or stop (comments, or ops 0x20c9eb18, 0xb95616b6) at a known auction, which transfers the item to the winner (that purchase is an NftItemTransfer and NftPurchase) or back to the owner.",
			Failed:  "the auction or the item's transfer failed",
			Differs: "toncenter never marks it failed"},
		Type{Value: AuctionBid{}, Title: "Auction bid", Describe: describeAs(func(v *AuctionBid, w *Words) string {
			return "Bid " + w.TON(v.Amount) + " for " + w.item(v.Domain, v.Nft, v.Collection)
		}),
			Toncenter: "auction_bid", Protocols: "Getgems auctions, Telemint items (Fragment), .ton DNS items",
			Doc:     "A plain TON transfer (not cancel, finish or stop) to a Getgems auction, to a Telemint item, or to a .ton DNS item that pays the previous bid back (outbid_notification); without indexer knowledge, to a contract that pays a previous bid back.",
			Failed:  "the auction rejected the bid, by toncenter's rule for TON transfers (a non-bounceable bid that could not buy gas is not failed)",
			Differs: "toncenter names a .ton DNS auction fragment too"},
		Type{Value: AuctionOutbid{}, Title: "Outbid", Describe: describeAs(func(v *AuctionOutbid, w *Words) string {
			return "Outbid " + w.Account(v.Bidder) + " for " + w.NFT(v.Nft, v.Collection) + ", who got " + w.TON(v.Amount) + " back"
		}),
			Toncenter: "auction_outbid", Protocols: "Getgems auctions, Telemint items (Fragment), .ton DNS items",
			Doc:     "The previous bid paid back on a new bid: the single Getgems comment transfer \"Your bid has been outbid by another user\", or outbid_notification (0x557cea20).",
			Failed:  "the payback failed",
			Differs: "toncenter never marks it failed"},
	)
	addMatcher(OrderProtocol+12, "NftPutOnSale", matchNftPutOnSale)
	addMatcher(OrderProtocol+14, "NftCancelTrade", matchNftCancelTrade)
	addMatcher(OrderToken+40, "AuctionBid", matchAuctionBid)
	addMatcher(OrderToken+41, "NftUpdateSale", matchNftUpdateSale)
}

// matchNftPutOnSale: the owner transfers the item to a marketplace
// contract (n1 is the item's transaction), whose answer to
// ownership_assigned deploys a sale or auction contract and transfers the
// item on to it.
func matchNftPutOnSale(c *classifier, n1 *node) bool {
	first, ok := c.nftTransferAt(n1)
	if !ok || first.assigned == nil {
		return false
	}
	listing := first.assigned
	var deploy, n2 *node
	var second *nftTransferStep
	for _, ch := range listing.children {
		if ch.used || ch.in() == nil || ch.in().Bounced {
			continue
		}
		if deploy == nil && deploysAccount(ch.tx) && len(ch.in().InitState) > 0 {
			deploy = ch
		}
	}
	if deploy == nil {
		return false
	}
	for _, ch := range listing.children {
		if ch.used || ch.tx.Account != n1.tx.Account {
			continue
		}
		if st, ok := c.nftTransferAt(ch); ok && string(st.value.Recipient) == deploy.tx.Account {
			n2, second = ch, st
			break
		}
	}
	if n2 == nil {
		return false
	}
	si, ok := deploy.stateInit()
	if !ok {
		return false
	}
	k, known := c.known[deploy.tx.Account]
	kind, version := getgemsKind(si, k, known)
	owner := first.value.Sender
	nft := Address(n1.tx.Account)
	collection, index := c.itemFacts(n1.tx.Account)
	var value any
	switch kind {
	case chain.KindNftSale:
		s, ok := parseGetgemsSale(si.data, version)
		if !ok || s.nft != "" && s.nft != n1.tx.Account {
			return false
		}
		v := &NftPutOnSale{Owner: owner, Listing: Address(listing.tx.Account), SaleContract: Address(deploy.tx.Account),
			Nft: nft, Collection: collection, NftIndex: index, Marketplace: Address(s.market), MarketplaceName: "getgems",
			FullPrice: s.fullPrice, MarketplaceFee: s.fee, MarketplaceFeeAddress: Address(s.feeAddress),
			RoyaltyAmount: s.royalty, RoyaltyAddress: Address(s.royaltyTo),
			MarketplaceFeePercent: s.feePercent, RoyaltyPercent: s.royaltyPct, Version: Text(version)}
		if known && k.Market != "" {
			v.Marketplace = Address(k.Market)
		}
		value = v
	case chain.KindNftAuction:
		a, ok := parseGetgemsAuction(si.data, version)
		if !ok {
			return false
		}
		v := &NftPutOnAuction{Owner: owner, Listing: Address(listing.tx.Account), AuctionContract: Address(deploy.tx.Account),
			Nft: nft, Collection: collection, NftIndex: index, Marketplace: Address(a.market), MarketplaceName: "getgems",
			MarketplaceFeeAddress: Address(a.feeAddress), MarketplaceFeeFactor: a.feeFactor, MarketplaceFeeBase: a.feeBase,
			RoyaltyAddress: Address(a.royaltyTo), RoyaltyFeeFactor: a.royaltyFactor, RoyaltyFeeBase: a.royaltyBase,
			MinBid: a.minBid, MaxBid: a.maxBid, MinStep: a.minStep, EndTime: a.endTime, StepTime: a.stepTime, Version: Text(version)}
		if known && k.Market != "" {
			v.Marketplace = Address(k.Market)
		}
		value = v
	default:
		return false
	}
	nodes := append(append(first.nodes(), deploy), second.nodes()...)
	d := newDraft(value, n1.in().Hash, nodes...).withInitiator(n1)
	d.ok = n1.ok() && n2.ok() && deploy.ok()
	// The two transfers are actions of their own too, as toncenter reports
	// them beside the listing.
	t1 := newDraft(first.value, n1.in().Hash, first.nodes()...).withInitiator(n1)
	t1.ok = !callFailed(n1)
	t2 := newDraft(second.value, n2.in().Hash, second.nodes()...)
	t2.ok = !callFailed(n2)
	c.add(d)
	c.add(t1)
	c.add(t2)
	return true
}

// auctionCommand reads a Getgems auction command from a message: cancel,
// finish or stop, as a text comment or an op code.
func auctionCommand(n *node) string {
	if ton, text := tonTransferOf(n); ton {
		switch text {
		case "cancel", "finish", "stop":
			return text
		}
		return ""
	}
	if !n.hasOp || n.in().Bounced {
		return ""
	}
	switch n.op {
	case opAuctionCancel:
		return "cancel"
	case opAuctionFinish:
		return "finish"
	case opAuctionStop:
		return "stop"
	}
	return ""
}

// matchNftCancelTrade: a sale (op 3) or an auction (cancel, finish, stop)
// hands the item on; s is the sale or auction contract's transaction, the
// item's transfer stays an action of its own.
func matchNftCancelTrade(c *classifier, s *node) bool {
	m := s.in()
	if m == nil || m.IsExternalIn() || m.Bounced {
		return false
	}
	cmd := auctionCommand(s)
	if cmd == "" && !s.is(opSaleCancel) {
		return false
	}
	var t *nftTransferStep
	for _, ch := range s.children {
		if st, ok := c.nftTransferAt(ch); ok {
			t = st
			break
		}
	}
	if t == nil {
		return false
	}
	k, known := c.known[s.tx.Account]
	known = known && k.Kind != ""
	if known && k.Item != "" && k.Item != t.item.tx.Account {
		return false
	}
	newOwner := t.value.Recipient
	var value any
	switch {
	case s.is(opSaleCancel) && (known && k.Kind == chain.KindNftSale || !known && string(newOwner) == m.Source):
		var body struct {
			Op      uint32
			QueryID uint64
		}
		decodePrefix(m.Body, &body)
		v := &NftCancelSale{Owner: newOwner, SaleContract: Address(s.tx.Account), Nft: t.value.Nft,
			Collection: t.value.Collection, Canceller: Address(m.Source), QueryID: nano(body.QueryID)}
		if known {
			v.Marketplace, v.MarketplaceName = Address(k.Market), "getgems"
		}
		value = v
	case cmd == "cancel" && known && k.Kind == chain.KindNftAuction:
		value = &NftCancelAuction{Owner: newOwner, AuctionContract: Address(s.tx.Account), Nft: t.value.Nft,
			Collection: t.value.Collection, Marketplace: Address(k.Market), MarketplaceName: "getgems", Canceller: Address(m.Source)}
	case (cmd == "finish" || cmd == "stop") && known && k.Kind == chain.KindNftAuction:
		value = &NftFinishAuction{Owner: newOwner, AuctionContract: Address(s.tx.Account), Nft: t.value.Nft,
			Collection: t.value.Collection, Marketplace: Address(k.Market), MarketplaceName: "getgems", Finisher: Address(m.Source)}
	default:
		return false
	}
	d := newDraft(value, m.Hash, s).withInitiator(s)
	d.ok = s.ok() && t.item.ok()
	c.add(d)
	return true
}

// matchNftUpdateSale: the owner's change-price request at a sale.
func matchNftUpdateSale(c *classifier, s *node) bool {
	if !s.is(opSaleUpdate) {
		return false
	}
	k, known := c.known[s.tx.Account]
	if known && k.Kind != "" && k.Kind != chain.KindNftSale {
		return false
	}
	var body struct {
		Op        uint32
		QueryID   uint64
		FullPrice tlb.VarUInteger16
		Fee       tlb.VarUInteger16
		Royalty   tlb.VarUInteger16
	}
	if !s.decode(&body) {
		return false
	}
	v := &NftUpdateSale{Sender: Address(s.in().Source), SaleContract: Address(s.tx.Account),
		FullPrice: amount(body.FullPrice), MarketplaceFee: amount(body.Fee), RoyaltyAmount: amount(body.Royalty),
		QueryID: nano(body.QueryID)}
	if known && k.Kind == chain.KindNftSale {
		v.Nft, v.Marketplace, v.MarketplaceName = Address(k.Item), Address(k.Market), "getgems"
	}
	d := newDraft(v, s.in().Hash, s, s.bouncedChild()).withInitiator(s)
	d.ok = s.ok()
	c.add(d)
	return true
}

// bidTarget is what the indexer knows of an account a bid went to.
func (c *classifier) bidTarget(n *node) (auctionType string, nft string, ok bool) {
	acc := n.tx.Account
	k, known := c.known[acc]
	switch {
	case known && k.Kind == chain.KindNftAuction:
		return "getgems", k.Item, true
	case known && k.Kind == chain.KindNftItem && isTeleitem(k):
		return "fragment", acc, true
	case known && k.Kind == chain.KindNftItem && c.isDnsItem(acc):
		// A DNS item takes plain transfers from its owner too (a top-up):
		// only one that pays a previous bid back is a bid.
		return "dns", acc, outbidChild(n) != nil
	case known && k.Kind != "":
		return "", "", false
	}
	// Unknown contract: a bid is recognized by the payback of the previous one.
	if outbidChild(n) != nil {
		return "", acc, true
	}
	if getgemsOutbid(n) != nil {
		return "getgems", "", true
	}
	return "", "", false
}

// isTeleitem reports a Telemint item (Fragment usernames, numbers, gifts),
// known by its metadata on nft.fragment.com.
func isTeleitem(k chain.KnownContract) bool {
	return strings.Contains(k.Content["uri"], "https://nft.fragment.com")
}

// outbidChild is the single outbid_notification an auction (n's account)
// sent, nil when none or several.
func outbidChild(n *node) *node {
	var out *node
	for _, ch := range n.children {
		if ch.used || !ch.is(opOutbid) || ch.in().Source != n.tx.Account {
			continue
		}
		if out != nil {
			return nil
		}
		out = ch
	}
	return out
}

// getgemsOutbid is the single comment transfer a Getgems auction pays an
// outbid bid back with, nil when none or several.
func getgemsOutbid(n *node) *node {
	var out *node
	for _, ch := range n.children {
		if ch.used {
			continue
		}
		if ton, text := tonTransferOf(ch); ton && strings.Contains(text, getgemsOutbidText) {
			if out != nil {
				return nil
			}
			out = ch
		}
	}
	return out
}

// matchAuctionBid: a plain TON transfer to an auction, with the payback of
// the previous bid (AuctionOutbid) when there is one.
func matchAuctionBid(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.Bounced || deploysAccount(n.tx) {
		return false
	}
	ton, text := tonTransferOf(n)
	// Auction commands are not bids. A Telemint item's "#topup" is one:
	// while an auction runs the item takes any plain transfer as a bid
	// (telemint nft-item.fc), and toncenter makes no exception.
	if !ton || text == "cancel" || text == "finish" || text == "stop" {
		return false
	}
	typ, nft, ok := c.bidTarget(n)
	if !ok {
		return false
	}
	v := &AuctionBid{Bidder: Address(m.Source), Auction: Address(n.tx.Account), Amount: nano(m.Value),
		Nft: Address(nft), AuctionType: Text(typ)}
	if nft != "" {
		v.Collection, v.NftIndex = c.itemFacts(nft)
		v.Domain = Text(c.domainOf(nft))
	}
	d := newDraft(v, m.Hash, n).withInitiator(n)
	d.ok = !tonTransferFailed(n)
	var out *node
	var comment string
	if typ == "getgems" {
		if out = getgemsOutbid(n); out != nil {
			_, comment = tonTransferOf(out)
		}
	} else {
		out = outbidChild(n)
	}
	c.add(d)
	if out != nil {
		ov := &AuctionOutbid{Auction: Address(n.tx.Account), Bidder: Address(out.tx.Account), NewBidder: Address(m.Source),
			Amount: nano(out.in().Value), Nft: v.Nft, Collection: v.Collection, Comment: Text(comment), AuctionType: Text(typ)}
		od := newDraft(ov, out.in().Hash, out)
		od.ok = out.ok()
		c.add(od)
	}
	return true
}
