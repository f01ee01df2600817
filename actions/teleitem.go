package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// TeleitemStartAuction: the owner of a Telemint item (Fragment username,
// number) put it up for auction on the item itself.
type TeleitemStartAuction struct {
	Owner           Address `json:"owner,omitempty" role:"sender" tc:"owner" doc:"the owner who started the auction"`
	Nft             Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the item, which runs the auction itself (toncenter's auction_address is the same)"`
	Collection      Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex        BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item, when known"`
	MarketplaceName Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"fragment"`
	Beneficiary     Address `json:"beneficiary,omitempty" tc:"marketplace_fee_address" doc:"who receives the winning bid (toncenter's marketplace_fee_address)"`
	MinBid          BigInt  `json:"min_bid,omitempty" tc:"min_bid" doc:"nanotons of the least first bid"`
	MaxBid          BigInt  `json:"max_bid,omitempty" tc:"max_bid" doc:"nanotons of the bid that buys the item at once (0: none)"`
	MinBidStep      *int64  `json:"min_bid_step,omitempty" doc:"the least raise of a bid, percent"`
	MinExtendTime   *int64  `json:"min_extend_time,omitempty" doc:"seconds a late bid extends the auction to"`
	Duration        *int64  `json:"duration,omitempty" doc:"seconds the auction lasts"`
	QueryID         BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
}

// TeleitemCancelAuction: the owner of a Telemint item cancelled its auction
// (possible while nobody has bid).
type TeleitemCancelAuction struct {
	Owner      Address `json:"owner,omitempty" role:"sender" tc:"owner" doc:"the owner who cancelled"`
	Nft        Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the item (toncenter's auction_address is the same)"`
	Collection Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex   BigInt  `json:"nft_index,omitempty" doc:"index of the item, when known"`
	QueryID    BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
}

func init() {
	declare(
		Type{Value: TeleitemStartAuction{}, Title: "Auction started", Describe: describeAs(func(v *TeleitemStartAuction, w *Words) string {
			return "Started an auction of " + w.NFT(v.Nft, v.Collection) + " from " + w.TON(v.MinBid)
		}),
			Toncenter: "teleitem_start_auction", Protocols: "Telemint items (Fragment)",
			Doc:     "teleitem_start_auction (0x487a8e81) at the item, with its auction config; teleitem_ok (0xa37a0983) is its answer.",
			Failed:  "the item rejected it",
			Differs: "toncenter needs the indexer to know the item as a Telemint item"},
		Type{Value: TeleitemCancelAuction{}, Title: "Auction cancelled", Describe: describeAs(func(v *TeleitemCancelAuction, w *Words) string {
			return "Cancelled the auction of " + w.NFT(v.Nft, v.Collection)
		}),
			Toncenter: "teleitem_cancel_auction", Protocols: "Telemint items (Fragment)",
			Doc:     "teleitem_cancel_auction (0x371638ae) at the item; teleitem_ok (0xa37a0983) is its answer.",
			Failed:  "the item rejected it",
			Differs: "toncenter needs the indexer to know the item as a Telemint item"},
	)
	addMatcher(OrderToken+43, "TeleitemAuction", matchTeleitemAuction)
}

// teleitemAuctionConfig: beneficiary_address:MsgAddressInt
// initial_min_bid:Grams max_bid:Grams min_bid_step:uint8
// min_extend_time:uint32 duration:uint32 (telemint.tlb).
type teleitemAuctionConfig struct {
	Beneficiary   tlb.MsgAddress
	InitialMinBid tlb.VarUInteger16
	MaxBid        tlb.VarUInteger16
	MinBidStep    uint8
	MinExtendTime uint32
	Duration      uint32
}

// matchTeleitemAuction: teleitem_start_auction or teleitem_cancel_auction
// at a Telemint item.
func matchTeleitemAuction(c *classifier, n *node) bool {
	if !n.is(abi.TeleitemStartAuctionMsgOpCode, abi.TeleitemCancelAuctionMsgOpCode) {
		return false
	}
	m := n.in()
	collection, index := c.itemFacts(n.tx.Account)
	var value any
	if n.is(abi.TeleitemStartAuctionMsgOpCode) {
		var body struct {
			Op      uint32
			QueryID uint64
			Config  teleitemAuctionConfig `tlb:"^"`
		}
		v := &TeleitemStartAuction{Owner: Address(m.Source), Nft: Address(n.tx.Account), Collection: collection,
			NftIndex: index, MarketplaceName: "fragment"}
		if decodePrefix(m.Body, &body) {
			cfg := body.Config
			step, ext, dur := int64(cfg.MinBidStep), int64(cfg.MinExtendTime), int64(cfg.Duration)
			v.Beneficiary, v.MinBid, v.MaxBid = Address(addr(cfg.Beneficiary)), amount(cfg.InitialMinBid), amount(cfg.MaxBid)
			v.MinBidStep, v.MinExtendTime, v.Duration, v.QueryID = &step, &ext, &dur, nano(body.QueryID)
		}
		value = v
	} else {
		var body struct {
			Op      uint32
			QueryID uint64
		}
		decodePrefix(m.Body, &body)
		value = &TeleitemCancelAuction{Owner: Address(m.Source), Nft: Address(n.tx.Account), Collection: collection,
			NftIndex: index, QueryID: nano(body.QueryID)}
	}
	d := newDraft(value, m.Hash, n, n.child(abi.TeleitemOkMsgOpCode), n.bouncedChild()).withInitiator(n)
	d.ok = n.ok()
	c.add(d)
	return true
}
