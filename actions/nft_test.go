package actions_test

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("NftMint", 1, 1)
}

// TestGoldenNft pins two labelled marketplace traces whole.
func TestGoldenNft(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A wallet pays a Getgems sale contract (comment "Bought on
			// getgems.io", 1.65 TON); the sale pays the seller 1.372369010
			// TON, sends a 0-TON marketplace fee (that transaction aborts)
			// and transfers the item to the buyer, which gets
			// ownership_assigned and the excess. Right, as toncenter
			// reports it: an NftItemTransfer from the sale contract with
			// is_purchase, price = the sale's full price 1.35 TON, seller
			// 0:0D57.. and marketplace 0:584E.. (from the indexer's sale
			// facts), over the wallet, sale, item, ownership_assigned and
			// excess transactions, listed as a step of the NftPurchase,
			// which is the same plus the payout to the seller; the fee transfer (zero value, whose
			// recipient aborted without the coins coming back) is a
			// TonTransfer of its own, ok by toncenter's rule for transfers
			// that could not bounce.
			name: "getgems_sale_purchase",
			file: "toncenter-traces/traces/mG5NGg-37hpz1Vgs5KvDo0HKgtQKCnMbmGEpdApY5Ls=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.NftTransferMsgOpCode) }) &&
					hasTx(tr, func(tx *chain.Transaction) bool {
						return opIs(tx.InMsg, abi.TextCommentMsgOpCode) && bytes.Contains(tx.InMsg.Body, []byte("getgems"))
					})
			},
			want: []string{"NftPurchase:ok", "TonTransfer:ok"},
		},
		{
			// An external "finish" to a Getgems auction (103 TON last bid):
			// the auction pays the marketplace fee and the owner's profit
			// and transfers the item to the winner (whose
			// ownership_assigned aborts). Right: the external finish
			// belongs to the purchase (toncenter includes an external
			// message that triggers it); NftItemTransfer is_purchase with
			// price 103 TON, seller = the auction's owner 0:C002.. (who is
			// also paid the profit), marketplace 0:9A9C.., a step of the
			// NftPurchase, which adds the profit payout; the marketplace fee
			// is a TonTransfer.
			name: "getgems_auction_finish",
			file: "toncenter-traces/traces/F73aJsg-E-RHh3nJel9-KZ23sQ80dLMqt26gbUEXHIs=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.NftTransferMsgOpCode) })
			},
			want: []string{"NftPurchase:ok", "TonTransfer:ok"},
		},
	})
}

const (
	tonN = 1_000_000_000
)

var (
	aBuyer      = acct(0xB1)
	aSeller     = acct(0x5E)
	aSale       = acct(0x5A)
	aItem       = acct(0x17)
	aFee        = acct(0xFE)
	aMarket     = acct(0x3A)
	aCollection = acct(0xC0)
	aPrev       = acct(0x9B)
	aRoyalty    = acct(0xA1)
	aBenef      = acct(0xBE)
	aAuction    = acct(0xAC)
	aListing    = acct(0x11)
	aWinner     = acct(0x33)
	aOther      = acct(0x44)
	aDnsCol     = "0:B774D95EB20543F186C06B371AB88AD704F7E256130CAF96189368A7D0CB6CCF"
)

// nftTransfer is a TEP-62 transfer with an inline forward payload.
func nftTransfer(queryID uint64, newOwner, response string, forward uint64, payload ...part) *boc.Cell {
	return cellOf(append([]part{op(abi.NftTransferMsgOpCode), u64(queryID), addr(newOwner), addr(response),
		bit(false), coins(forward), bit(false)}, payload...)...)
}

// ownershipAssigned is ownership_assigned with an inline payload.
func ownershipAssigned(queryID uint64, prevOwner string, payload ...part) *boc.Cell {
	return cellOf(append([]part{op(abi.NftOwnershipAssignedMsgOpCode), u64(queryID), addr(prevOwner), bit(false)}, payload...)...)
}

// getgemsSaleTrace: a buyer pays a sale contract, which pays the seller and
// the marketplace and transfers the item (nft-fixprice-sale-v3r3.fc buy()).
func getgemsSaleTrace() *stx {
	return ext(aBuyer,
		call(aSale, 1_650_000_000, comment("Bought on getgems.io"),
			call(aSeller, 1_372_369_010, nil),
			call(aFee, 67_500_000, nil),
			call(aItem, 200_000_000, nftTransfer(0, aBuyer, aBuyer, 30_000_000),
				call(aBuyer, 30_000_000, ownershipAssigned(0, aSale)),
				call(aBuyer, 150_000_000, excesses(0)))))
}

func TestNftSalePurchase(t *testing.T) {
	t.Run("known sale", func(t *testing.T) {
		known := chain.KnownContracts{
			aSale: {Kind: chain.KindNftSale, Owner: aSeller, Item: aItem, Market: aMarket, Price: 1_350_000_000},
			aItem: {Kind: chain.KindNftItem, Collection: aCollection, Index: "7", Owner: aBuyer},
		}
		all := classifyAll(t, getgemsSaleTrace(), known)
		got := all.top()
		// The purchase's transfer, as toncenter lists it: a step of the
		// purchase, shown to clients that cannot show a purchase.
		tr := all.stepsOf(got.one(t, "NftPurchase")).one(t, "NftItemTransfer:ok")
		tr.want(t, map[string]any{"sender": aSale, "recipient": aBuyer, "is_purchase": true, "price": "1350000000",
			"seller": aSeller, "marketplace": aMarket, "marketplace_name": "getgems", "payout_amount": "1372369010",
			"payout_address": aSeller, "collection": aCollection, "nft_index": "7", "forward_amount": "30000000"})
		tr.wantTxs(t, 5) // wallet, sale, item, assigned, excess
		p := got.one(t, "NftPurchase")
		p.want(t, map[string]any{"buyer": aBuyer, "seller": aSeller, "sale_contract": aSale, "price": "1350000000",
			"payout_amount": "1372369010", "marketplace_name": "getgems"})
		if p.txs() != 6 {
			t.Errorf("purchase over %d txs, want 6 (the transfer's and the payout)", p.txs())
		}
		fee := got.one(t, "TonTransfer")
		fee.want(t, map[string]any{"recipient": aFee, "amount": "67500000"})
	})
	t.Run("unknown sale", func(t *testing.T) {
		all := classifyAll(t, getgemsSaleTrace(), nil)
		all.stepsOf(all.top().one(t, "NftPurchase")).one(t, "NftItemTransfer").want(t, map[string]any{"is_purchase": true, "seller": aSeller,
			"price": "1650000000", "marketplace": nil, "marketplace_name": nil})
		all.top().one(t, "NftPurchase").want(t, map[string]any{"buyer": aBuyer, "seller": aSeller, "payout_amount": "1372369010"})
		// toncenter sees a plain transfer from a contract it does not know:
		// the buyer's payment stays its own TonTransfer.
		var paid bool
		for _, x := range all.top().ofKind("TonTransfer") {
			paid = paid || x.v["sender"] == aBuyer && x.v["recipient"] == aSale && x.v["amount"] == "1650000000"
		}
		if !paid {
			t.Errorf("no TonTransfer of the buyer's payment in %v", all.top().kinds())
		}
	})
	t.Run("item fails", func(t *testing.T) {
		root := getgemsSaleTrace()
		item := root.kids[0].kids[2]
		item.kids = nil
		item.fails(0)
		all := classifyAll(t, root, nil)
		all.stepsOf(all.top().one(t, "NftPurchase:failed")).one(t, "NftItemTransfer:failed")
	})
}

// bidInfo is the Telemint teleitem_bid_info payload of ownership_assigned.
func bidInfo(bid uint64) []part { return []part{op(0x38127de1), coins(bid), u(1_700_000_000, 32)} }

func fillUp() *boc.Cell { return opQuery(0x370fec51, 1) }
func outbid() *boc.Cell { return opQuery(0x557cea20, 1) }
func teleitem() chain.KnownContract {
	return chain.KnownContract{Kind: chain.KindNftItem, Collection: aCollection, Index: "99", Content: map[string]string{"uri": "https://nft.fragment.com/username/alice.json"}}
}

// A bid at the max price ends a Telemint auction at once: the item pays the
// previous bid back, announces the new owner with the bid info, pays the
// royalty then the beneficiary (telemint nft-item.fc process_new_bid,
// maybe_end_auction). The figures are those of a mainnet username purchase
// (tonkeeper/opentonapi's buy-nft-on-fragment test: 4500 TON, royalty
// 224.999 TON, the seller paid 4274.977607063 TON).
func TestFragmentPurchase(t *testing.T) {
	buyer := "0:D8CD999FB2B1B384E6CA254C3883375E23111A8B78C015B886286C31BF11E29D"
	item := "0:62ABD9CB04ACCD71441A61CEB6D48D62C3323F4AA2AED89CAF3E3FFAFF6C9829"
	seller := "0:6E9AE2FDB2C10E52B6711A64E0798E6A6C7187D42C1E1FBFDB2B2E9D1173E0C1"
	royalty := "0:408DA3B28B6C065A593E10391269BAAA9C5F8CAEBC0C69D9F0AABBAB2A99256B"
	purchase := func(prevBid bool) *stx {
		bid := call(item, 4500*tonN, nil,
			call(buyer, 10_000_000, ownershipAssigned(5, seller, bidInfo(4500*tonN)...)),
			call(royalty, 224_999_000_000, fillUp()),
			call(seller, 4_274_977_607_063, fillUp()))
		if prevBid {
			bid.kids = append([]*stx{call(aPrev, 4000*tonN, outbid())}, bid.kids...)
		}
		return ext(buyer, bid)
	}
	for _, prevBid := range []bool{false, true} {
		all := classifyAll(t, purchase(prevBid), chain.KnownContracts{item: teleitem()})
		got := all.top()
		tr := all.stepsOf(got.one(t, "NftPurchase")).one(t, "NftItemTransfer")
		tr.want(t, map[string]any{"sender": seller, "recipient": buyer, "nft": item, "is_purchase": true,
			"price": "4500000000000", "marketplace_name": "fragment", "royalty_amount": "224999000000", "royalty_address": royalty,
			"payout_amount": "4274977607063", "payout_address": seller, "query_id": "5", "collection": aCollection})
		if tr.txs() != 5 {
			t.Errorf("transfer over %d txs, want 5 (wallet, bid, assigned, two fill-ups)", tr.txs())
		}
		got.one(t, "NftPurchase").want(t, map[string]any{"buyer": buyer, "seller": seller, "price": "4500000000000",
			"marketplace_name": "fragment", "sale_contract": nil})
		if !prevBid {
			if len(got) != 1 {
				t.Errorf("got %s, want the purchase alone (its transfer is its step)", got.kinds())
			}
			continue
		}
		// The payback of the previous bid stays a call, as toncenter
		// reports it (the bid belongs to the purchase).
		got.one(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x557cea20", "contract": aPrev})
	}
	// Without indexer knowledge the bid info payload is enough.
	classify(t, purchase(false), nil).one(t, "NftPurchase")
}

func TestAuctionBids(t *testing.T) {
	t.Run("fragment", func(t *testing.T) {
		root := ext(aBuyer, call(aItem, 60*tonN, nil, call(aPrev, 50*tonN, outbid())))
		for _, known := range []chain.KnownContracts{{aItem: teleitem()}, nil} {
			got := classify(t, root, known)
			bid := got.one(t, "AuctionBid")
			bid.want(t, map[string]any{"bidder": aBuyer, "auction": aItem, "amount": "60000000000", "nft": aItem})
			o := got.one(t, "AuctionOutbid")
			o.want(t, map[string]any{"auction": aItem, "bidder": aPrev, "new_bidder": aBuyer, "amount": "50000000000"})
			if known != nil {
				bid.want(t, map[string]any{"auction_type": "fragment", "collection": aCollection, "nft_index": "99"})
			}
			if len(got) != 2 {
				t.Errorf("got %s, want the bid and the outbid only", got.kinds())
			}
		}
	})
	t.Run("getgems", func(t *testing.T) {
		root := ext(aBuyer, call(aAuction, 12*tonN, nil,
			call(aPrev, 9_994_423_000, comment("Your bid has been outbid by another user."))))
		known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem, Owner: aSeller, Market: aMarket},
			aItem: {Kind: chain.KindNftItem, Collection: aCollection, Index: "3"}}
		got := classify(t, root, known)
		got.one(t, "AuctionBid").want(t, map[string]any{"auction": aAuction, "nft": aItem, "collection": aCollection,
			"nft_index": "3", "auction_type": "getgems", "amount": "12000000000"})
		got.one(t, "AuctionOutbid").want(t, map[string]any{"bidder": aPrev, "new_bidder": aBuyer,
			"amount": "9994423000", "comment": "Your bid has been outbid by another user.", "auction_type": "getgems"})
	})
	t.Run("rejected", func(t *testing.T) {
		root := ext(aBuyer, call(aAuction, tonN, nil).fails(0))
		known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem}}
		classify(t, root, known).one(t, "AuctionBid:failed")
	})
	t.Run("dns top-up is not a bid", func(t *testing.T) {
		root := ext(aBuyer, call(aItem, tonN, nil))
		known := chain.KnownContracts{aItem: {Kind: chain.KindNftItem, Collection: aDnsCol}}
		got := classify(t, root, known)
		got.one(t, "TonTransfer")
	})
}

// getgemsAuctionEnd: a command to a Getgems auction that ends it
// (nft-auction-v3r3 handle::end_auction: fee, profit, then the item).
func getgemsAuctionEnd(command *boc.Cell, winner string) *stx {
	return ext(aSeller,
		call(aAuction, tonN, command,
			call(aFee, 500_000_000, comment("Marketplace fee")),
			call(aSeller, 9*tonN, comment("Profit")),
			call(aItem, 400_000_000, nftTransfer(42, winner, aSeller, 1),
				call(winner, 1, ownershipAssigned(42, aAuction)),
				call(aSeller, 300_000_000, excesses(42)))))
}

func TestGetgemsAuctionEnd(t *testing.T) {
	known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem, Owner: aSeller, Market: aMarket, Price: 10 * tonN}}
	for _, cmd := range []struct {
		name string
		body *boc.Cell
	}{{"comment", comment("finish")}, {"op", opQuery(0x20c9eb18, 0)}} {
		t.Run("finish by "+cmd.name, func(t *testing.T) {
			all := classifyAll(t, getgemsAuctionEnd(cmd.body, aWinner), known)
			got := all.top()
			got.one(t, "NftFinishAuction").want(t, map[string]any{"owner": aWinner, "auction_contract": aAuction,
				"nft": aItem, "marketplace": aMarket, "finisher": aSeller})
			tr := all.stepsOf(got.one(t, "NftPurchase")).one(t, "NftItemTransfer")
			tr.want(t, map[string]any{"is_purchase": true, "price": "10000000000", "seller": aSeller, "recipient": aWinner})
			if tr.txs() != 3 {
				t.Errorf("transfer over %d txs, want 3 (the finish command is the auction's own action)", tr.txs())
			}
			got.one(t, "NftPurchase").want(t, map[string]any{"payout_amount": "9000000000", "payout_comment": "Profit"})
			got.one(t, "TonTransfer").want(t, map[string]any{"comment": "Marketplace fee"})
		})
	}
	t.Run("cancel", func(t *testing.T) {
		root := ext(aSeller,
			call(aAuction, tonN, comment("cancel"),
				call(aItem, 900_000_000, nftTransfer(1, aSeller, aSeller, 0),
					call(aSeller, 800_000_000, excesses(1)))))
		got := classify(t, root, known)
		got.one(t, "NftCancelAuction").want(t, map[string]any{"owner": aSeller, "auction_contract": aAuction,
			"nft": aItem, "marketplace": aMarket, "marketplace_name": "getgems"})
		got.one(t, "NftItemTransfer").want(t, map[string]any{"is_purchase": false, "recipient": aSeller})
		if len(got) != 2 {
			t.Errorf("got %s", got.kinds())
		}
	})
}

// The cancel's accounts and its 1.1 TON are those of a mainnet Getgems
// cancel (tonkeeper/opentonapi's getgetms-cancel-sale test: op 3 at the
// sale, the item transferred back to the owner).
func TestGetgemsSaleCancelUpdate(t *testing.T) {
	owner := "0:E3E4DBD02B51E1E9C72DE4F017F1771BE882A8D479A3A1CD8B33535A83FD5FA4"
	sale := "0:30635BDAA6736AD1ED89146B5A34E2CC21E9ECA51031A463FE4C89A537304547"
	item := "0:8B281B8ADD972723536FABEDF3CCF203DAC9CA7CA8869FEDA03F69F5D6BFBC24"
	cancel := ext(owner,
		call(sale, 1_100_000_000, opQuery(3, 77),
			call(item, 1_000_000_000, nftTransfer(77, owner, owner, 0),
				call(owner, 900_000_000, excesses(77)))))
	known := chain.KnownContracts{sale: {Kind: chain.KindNftSale, Item: item, Owner: owner, Market: aMarket}}
	got := classify(t, cancel, known)
	got.one(t, "NftCancelSale").want(t, map[string]any{"owner": owner, "sale_contract": sale, "nft": item,
		"marketplace": aMarket, "marketplace_name": "getgems", "canceller": owner, "query_id": "77"})
	got.one(t, "NftItemTransfer").want(t, map[string]any{"sender": sale, "recipient": owner, "nft": item})
	if len(got) != 2 {
		t.Errorf("got %s, want the cancel and the transfer", got.kinds())
	}
	// Unknown to the indexer: the item going back to the canceller is enough.
	classify(t, cancel, nil).one(t, "NftCancelSale").want(t, map[string]any{"owner": owner, "marketplace": nil})

	update := ext(aSeller, call(aSale, 50_000_000, cellOf(op(0x6c6c2080), u64(5), coins(2*tonN), coins(100_000_000), coins(200_000_000))))
	known = chain.KnownContracts{aSale: {Kind: chain.KindNftSale, Item: aItem, Owner: aSeller, Market: aMarket}}
	got = classify(t, update, known)
	got.one(t, "NftUpdateSale").want(t, map[string]any{"sender": aSeller, "sale_contract": aSale, "nft": aItem,
		"marketplace": aMarket, "full_price": "2000000000", "marketplace_fee": "100000000", "royalty_amount": "200000000", "query_id": "5"})
}

// listingTrace: the owner transfers the item to a marketplace contract,
// which deploys the sale (or auction) and transfers the item on to it.
func listingTrace(saleData *boc.Cell, sale string) *stx {
	return ext(aSeller,
		call(aItem, 300_000_000, nftTransfer(9, aListing, aSeller, 200_000_000, text("x")),
			call(aListing, 200_000_000, ownershipAssigned(9, aSeller),
				call(sale, 50_000_000, nil).deploys(saleData),
				call(aItem, 100_000_000, nftTransfer(9, sale, aListing, 1),
					call(sale, 1, ownershipAssigned(9, aListing)),
					call(aListing, 50_000_000, excesses(9)))),
			call(aSeller, 50_000_000, excesses(9))))
}

func TestGetgemsListing(t *testing.T) {
	t.Run("sale v4r1", func(t *testing.T) {
		// nft-fixprice-sale-v4r1.fc storage: is_complete marketplace owner
		// full_price sold_at query_id ^(fee_address royalty_address
		// fee_percent:17 royalty_percent:17 nft created_at) jetton_prices.
		static := cellOf(addr(aFee), addr(aRoyalty), u(5000, 17), u(10000, 17), addr(aItem), u(1_700_000_000, 32))
		data := cellOf(bit(false), addr(aMarket), addr(""), coins(3*tonN), u(0, 32), u64(0), ref(static), bit(false))
		known := chain.KnownContracts{aSale: {Kind: chain.KindNftSale, Item: aItem, Owner: aSeller, Market: aMarket}}
		got := classify(t, listingTrace(data, aSale), known)
		got.one(t, "NftPutOnSale").want(t, map[string]any{"owner": aSeller, "listing": aListing, "sale_contract": aSale,
			"nft": aItem, "marketplace": aMarket, "marketplace_name": "getgems", "full_price": "3000000000",
			"marketplace_fee": "150000000", "royalty_amount": "300000000", "marketplace_fee_address": aFee,
			"royalty_address": aRoyalty, "version": "v4r1"})
		var transfers int
		for _, a := range got {
			if a.Type == "NftItemTransfer" {
				transfers++
			}
		}
		if transfers != 2 {
			t.Errorf("got %s, want both item transfers beside the listing", got.kinds())
		}
	})
	t.Run("auction v3r3", func(t *testing.T) {
		fees := cellOf(addr(aFee), addr(aRoyalty))
		constant := cellOf(addr(aMarket), coins(tonN), coins(100*tonN), coins(100_000_000), u(300, 32))
		data := cellOf(bit(false), bit(false), addr(""), coins(0), u(0, 32), u(1_800_000_000, 32), addr(""), u64(0), u(5, 32), u(100, 32), u(10, 32), u(100, 32), ref(fees), ref(constant))
		known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem, Owner: aSeller, Market: aMarket}}
		got := classify(t, listingTrace(data, aAuction), known)
		got.one(t, "NftPutOnAuction").want(t, map[string]any{"owner": aSeller, "auction_contract": aAuction,
			"marketplace": aMarket, "marketplace_fee_factor": "5", "marketplace_fee_base": "100", "royalty_fee_factor": "10",
			"royalty_fee_base": "100", "min_bid": "1000000000", "max_bid": "100000000000", "min_step": "100000000",
			"end_time": 1_800_000_000, "step_time": 300, "marketplace_fee_address": aFee, "royalty_address": aRoyalty})
	})
	t.Run("unknown contract", func(t *testing.T) {
		got := classify(t, listingTrace(cellOf(u64(1)), aSale), nil)
		for _, a := range got {
			if a.Type == "NftPutOnSale" || a.Type == "NftPutOnAuction" {
				t.Errorf("got %s for a contract of unknown code", a.Type)
			}
		}
	})
}

func TestNftMintAndDiscovery(t *testing.T) {
	// A standard collection deploys item #5: data index:uint256
	// collection_address (getgems nft-collection.fc deploy_nft_item).
	root := ext(aSeller,
		call(aCollection, 100_000_000, cellOf(op(1), u64(0), u64(5)),
			call(aItem, 50_000_000, cellOf(addr(aSeller), ref(cellOf(text("meta.json"))))).
				deploys(cellOf(u(5, 256), addr(aCollection)))))
	got := classify(t, root, nil)
	got.one(t, "NftMint").want(t, map[string]any{"nft": aItem, "collection": aCollection, "nft_index": "5",
		"sender": aCollection, "owner": nil})
	got.one(t, "ContractDeploy")

	// The .ton DNS collection deploys an item for a comment "alice".
	dnsItem := acct(0xD1)
	root = ext(aBuyer,
		call(aDnsCol, 100*tonN, comment("alice"),
			call(dnsItem, 99*tonN, cellOf(addr(aBuyer), ref(cellOf(text("alice"))))).
				deploys(cellOf(u(12345, 256), addr(aDnsCol)))))
	classify(t, root, nil).one(t, "NftMint").want(t, map[string]any{"domain": "alice.ton", "collection": aDnsCol})

	// get_static_data answered by report_static_data.
	root = ext(aOther,
		call(aItem, 50_000_000, opQuery(0x2fcb26a2, 4),
			call(aOther, 40_000_000, cellOf(op(0x8b771735), u64(4), u(77, 256), addr(aCollection)))))
	got = classify(t, root, nil)
	got.one(t, "NftDiscovery").want(t, map[string]any{"sender": aOther, "nft": aItem, "collection": aCollection,
		"nft_index": "77", "query_id": "4"})
	if len(got) != 1 {
		t.Errorf("got %s", got.kinds())
	}
}

func TestTeleitemAuctionCommands(t *testing.T) {
	config := cellOf(addr(aBenef), coins(10*tonN), coins(1000*tonN), u(5, 8), u(3600, 32), u(86400, 32))
	start := ext(aSeller,
		call(aItem, 100_000_000, cellOf(op(0x487a8e81), u64(8), ref(config)),
			call(aSeller, 90_000_000, opQuery(0xa37a0983, 8))))
	got := classify(t, start, chain.KnownContracts{aItem: teleitem()})
	a := got.one(t, "TeleitemStartAuction")
	a.want(t, map[string]any{"owner": aSeller, "nft": aItem, "beneficiary": aBenef, "min_bid": "10000000000",
		"max_bid": "1000000000000", "min_bid_step": 5, "min_extend_time": 3600, "duration": 86400,
		"marketplace_name": "fragment", "collection": aCollection, "query_id": "8"})
	if len(got) != 1 || a.txs() != 3 {
		t.Errorf("got %s over %d txs, want the start alone with teleitem_ok", got.kinds(), a.txs())
	}
	cancel := ext(aSeller,
		call(aItem, 100_000_000, opQuery(0x371638ae, 8)).fails(0))
	classify(t, cancel, nil).one(t, "TeleitemCancelAuction").want(t, map[string]any{"owner": aSeller, "nft": aItem})
	classify(t, cancel, nil).one(t, "TeleitemCancelAuction:failed")
}

func dnsKey(name string) []byte {
	h := sha256.Sum256([]byte(name))
	return h[:]
}

func TestDnsActions(t *testing.T) {
	dnsItem := acct(0xD1)
	known := chain.KnownContracts{dnsItem: {Kind: chain.KindNftItem, Collection: aDnsCol, Index: "1",
		Content: map[string]string{"domain": "alice.ton"}}}
	change := func(key []byte, value *boc.Cell) *stx {
		parts := []part{op(0x4eb1f0f9), u64(3), raw(key)}
		if value != nil {
			parts = append(parts, ref(value))
		}
		return ext(aSeller, call(dnsItem, 50_000_000, cellOf(parts...)))
	}
	t.Run("wallet record", func(t *testing.T) {
		got := classify(t, change(dnsKey("wallet"), cellOf(u(0x9fd3, 16), addr(aOther), u(0, 8))), known)
		got.one(t, "ChangeDns").want(t, map[string]any{"sender": aSeller, "nft": dnsItem, "collection": aDnsCol,
			"category": "wallet", "value_schema": "DNSSmcAddress", "smc_address": aOther, "flags": 0, "domain": "alice.ton", "query_id": "3"})
		// The wallet record names aOther alice.ton in the address book;
		// without the item's domain, or for another record, nothing.
		names := actions.DNSNames(actions.Classify(traceOf(change(dnsKey("wallet"), cellOf(u(0x9fd3, 16), addr(aOther), u(0, 8)))), known))
		if len(names) != 1 || names[0] != (chain.DNSName{Domain: "alice.ton", Address: aOther}) {
			t.Errorf("DNSNames = %v, want alice.ton -> %s", names, aOther)
		}
		if names := actions.DNSNames(actions.Classify(traceOf(change(dnsKey("wallet"), cellOf(u(0x9fd3, 16), addr(aOther), u(0, 8)))), nil)); len(names) != 0 {
			t.Errorf("DNSNames without the domain = %v, want none", names)
		}
	})
	t.Run("site and storage", func(t *testing.T) {
		adnl := bytes.Repeat([]byte{0xAB}, 32)
		got := classify(t, change(dnsKey("site"), cellOf(u(0xad01, 16), raw(adnl), u(0, 8))), known)
		got.one(t, "ChangeDns").want(t, map[string]any{"category": "site", "value_schema": "DNSAdnlAddress",
			"adnl_address": "abababababababababababababababababababababababababababababababab"})
		got = classify(t, change(dnsKey("storage"), cellOf(u(0x7473, 16), raw(adnl))), known)
		got.one(t, "ChangeDns").want(t, map[string]any{"value_schema": "DNSStorageAddress",
			"storage_address": "abababababababababababababababababababababababababababababababab"})
	})
	t.Run("resolver and text", func(t *testing.T) {
		got := classify(t, change(dnsKey("dns_next_resolver"), cellOf(u(0xba93, 16), addr(aOther))), nil)
		got.one(t, "ChangeDns").want(t, map[string]any{"value_schema": "DNSNextResolver", "next_resolver": aOther,
			"domain": nil, "collection": nil})
		got = classify(t, change(dnsKey("text"), cellOf(u(0x1eda, 16), u(1, 8), u(5, 8), text("hello"))), nil)
		got.one(t, "ChangeDns").want(t, map[string]any{"value_schema": "DNSText", "text": "hello", "category": nil})
	})
	t.Run("delete", func(t *testing.T) {
		classify(t, change(dnsKey("site"), nil), known).one(t, "DeleteDns").want(t,
			map[string]any{"category": "site", "nft": dnsItem, "domain": "alice.ton"})
	})
	t.Run("renew after an auction", func(t *testing.T) {
		// The winner's first request makes the item pay the bid to the
		// collection (dns-contract nft-item.fc: fill_up on auction end).
		root := change(make([]byte, 32), nil)
		root.kids[0].kids = []*stx{call(aDnsCol, 160*tonN, fillUp())}
		got := classify(t, root, known)
		got.one(t, "RenewDns").want(t, map[string]any{"sender": aSeller, "nft": dnsItem, "domain": "alice.ton"})
		got.one(t, "DnsPurchase").want(t, map[string]any{"buyer": aSeller, "nft": dnsItem, "price": "160000000000",
			"payout_amount": "160000000000", "collection": aDnsCol, "domain": "alice.ton"})
		// Without indexer knowledge the DNS collection's address is enough.
		classify(t, root, nil).one(t, "DnsPurchase")
	})
	t.Run("release", func(t *testing.T) {
		root := ext(aBuyer, call(dnsItem, 10*tonN, opQuery(0x4ed14b65, 6),
			call(aPrev, 2*tonN, opQuery(0x4ed14b65, 6))))
		got := classify(t, root, known)
		got.one(t, "DnsRelease").want(t, map[string]any{"sender": aBuyer, "nft": dnsItem, "amount": "10000000000",
			"previous_owner": aPrev, "refund": "2000000000", "query_id": "6", "domain": "alice.ton"})
		got.one(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x4ed14b65", "contract": aPrev})
	})
	t.Run("bid", func(t *testing.T) {
		root := ext(aBuyer, call(dnsItem, 20*tonN, nil, call(aPrev, 10*tonN, outbid())))
		got := classify(t, root, known)
		got.one(t, "AuctionBid").want(t, map[string]any{"auction_type": "dns", "nft": dnsItem})
		got.one(t, "AuctionOutbid").want(t, map[string]any{"bidder": aPrev, "auction_type": "dns"})
	})
}

// bodyOf is a real message body (a base64 BOC) as a cell.
func bodyOf(t testing.TB, b64 string) *boc.Cell {
	t.Helper()
	cells, err := boc.DeserializeBocBase64(b64)
	if err != nil || len(cells) != 1 {
		t.Fatalf("bad BOC: %v", err)
	}
	return cells[0]
}

// Real change_dns_record bodies (tongo's abi test data, mainnet): one sets
// the wallet record of a .ton domain, the other has the zero key and no
// value. The item and the renewer's address and the 160.937090759 TON
// fill-up to the DNS collection are those of a mainnet renewal that
// completed the domain's auction (tonkeeper/opentonapi's domain-renew
// test), the shape dns-contract's nft-item.fc gives it.
func TestDnsRealBodies(t *testing.T) {
	owner := "0:2CF3B5B8C891E517C9ADDBDA1C0386A09CCACBB0E3FAF630B51CFC8152325ACB"
	item := "0:0100DE01079EB32B1D469BF16BE45D18084282F8F9FBFE01916978A9E45463D1"
	set := ext(owner, call(item, 50_000_000, bodyOf(t,
		"te6ccgEBAgEAVgABWE6x8PkAAAAAAAAAAOjUQFCHPbqGWqfBcKtMzmTZCDmjTc/Wz3HRTgIFRDsbAQBJn9OABZ52txkSPKL5Nbt7Q4Bw1BOZWXYcf17GFqOfkCpGS1lgEA==")))
	classify(t, set, nil).one(t, "ChangeDns").want(t, map[string]any{"sender": owner, "nft": item,
		"key": "e8d44050873dba865aa7c170ab4cce64d90839a34dcfd6cf71d14e0205443b1b", "category": "wallet",
		"value_schema": "DNSSmcAddress", "smc_address": owner, "flags": 0, "query_id": "0"})

	renew := ext(owner, call(item, 20_000_000, bodyOf(t,
		"te6ccgEBAQEALgAAWE6x8PkAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
		call(aDnsCol, 160_937_090_759, opQuery(0x370fec51, 0))))
	got := classify(t, renew, nil)
	got.one(t, "RenewDns").want(t, map[string]any{"sender": owner, "nft": item})
	got.one(t, "DnsPurchase").want(t, map[string]any{"buyer": owner, "nft": item, "price": "160937090759",
		"collection": aDnsCol, "query_id": "0"})
	if len(got) != 2 {
		t.Errorf("got %s, want the renewal and the purchase", got.kinds())
	}
}

// A transfer whose forward payload is an inline text comment: the comment
// and the payload are read from the rest of the body, not from the whole
// body (whose first word is the transfer's own op code).
func TestNftTransferInlineComment(t *testing.T) {
	root := ext(aSeller,
		call(aItem, 100_000_000, nftTransfer(1, aBuyer, aSeller, 10_000_000, op(0), text("gift for you")),
			call(aBuyer, 10_000_000, ownershipAssigned(1, aSeller, op(0), text("gift for you"))),
			call(aSeller, 50_000_000, excesses(1))))
	got := classify(t, root, nil)
	a := got.one(t, "NftItemTransfer")
	want, _ := comment("gift for you").ToBocBase64()
	a.want(t, map[string]any{"sender": aSeller, "recipient": aBuyer, "comment": "gift for you", "forward_payload": want,
		"forward_amount": "10000000", "response_destination": aSeller, "is_purchase": false})
	if a.txs() != 4 || len(got) != 1 {
		t.Errorf("got %s, transfer over %d txs; want one transfer over 4", got.kinds(), a.txs())
	}
	// An item that announces a new owner by itself keeps the comment too.
	root = call(aItem, 100_000_000, opQuery(0x12345678, 1),
		call(aBuyer, 10_000_000, ownershipAssigned(1, aSeller, op(0), text("hi")))).from(aCollection)
	got = classify(t, root, chain.KnownContracts{aItem: {Kind: chain.KindNftItem, Collection: aCollection}})
	got.one(t, "NftItemTransfer").want(t, map[string]any{"sender": aSeller, "recipient": aBuyer, "comment": "hi", "collection": aCollection})
}
