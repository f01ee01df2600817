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
			// excess transactions; the NftPurchase is the same plus the
			// payout to the seller; the fee transfer (zero value, whose
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
			want: []string{"NftItemTransfer:ok", "NftPurchase:ok", "TonTransfer:ok"},
		},
		{
			// An external "finish" to a Getgems auction (103 TON last bid):
			// the auction pays the marketplace fee and the owner's profit
			// and transfers the item to the winner (whose
			// ownership_assigned aborts). Right: the external finish
			// belongs to the purchase (toncenter includes an external
			// message that triggers it); NftItemTransfer is_purchase with
			// price 103 TON, seller = the auction's owner 0:C002.. (who is
			// also paid the profit), marketplace 0:9A9C..; NftPurchase adds
			// the profit payout; the marketplace fee is a TonTransfer.
			name: "getgems_auction_finish",
			file: "toncenter-traces/traces/F73aJsg-E-RHh3nJel9-KZ23sQ80dLMqt26gbUEXHIs=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.NftTransferMsgOpCode) })
			},
			want: []string{"NftItemTransfer:ok", "NftPurchase:ok", "TonTransfer:ok"},
		},
	})
}

const (
	tonN = 1_000_000_000
)

var (
	aBuyer      = nftAcct(0xB1)
	aSeller     = nftAcct(0x5E)
	aSale       = nftAcct(0x5A)
	aItem       = nftAcct(0x17)
	aFee        = nftAcct(0xFE)
	aMarket     = nftAcct(0x3A)
	aCollection = nftAcct(0xC0)
	aPrev       = nftAcct(0x9B)
	aRoyalty    = nftAcct(0xA1)
	aBenef      = nftAcct(0xBE)
	aAuction    = nftAcct(0xAC)
	aListing    = nftAcct(0x11)
	aWinner     = nftAcct(0x33)
	aOther      = nftAcct(0x44)
	aDnsCol     = "0:B774D95EB20543F186C06B371AB88AD704F7E256130CAF96189368A7D0CB6CCF"
)

func excessBody(t testing.TB, q uint64) *boc.Cell { return nftCell(t, op32(0xd53276db), nftU64(q)) }

// getgemsSaleTrace: a buyer pays a sale contract, which pays the seller and
// the marketplace and transfers the item (nft-fixprice-sale-v3r3.fc buy()).
func getgemsSaleTrace(t testing.TB) *synthNode {
	return tx(aBuyer, ext(aBuyer),
		tx(aSale, in(aBuyer, aSale, 1_650_000_000, nftComment(t, "Bought on getgems.io")),
			tx(aSeller, in(aSale, aSeller, 1_372_369_010, nil)),
			tx(aFee, in(aSale, aFee, 67_500_000, nil)),
			tx(aItem, in(aSale, aItem, 200_000_000, nftTransferBody(t, 0, aBuyer, aBuyer, 30_000_000)),
				tx(aBuyer, in(aItem, aBuyer, 30_000_000, assignedBody(t, 0, aSale))),
				tx(aBuyer, in(aItem, aBuyer, 150_000_000, excessBody(t, 0))))))
}

func TestNftSalePurchase(t *testing.T) {
	t.Run("known sale", func(t *testing.T) {
		known := chain.KnownContracts{
			aSale: {Kind: chain.KindNftSale, Owner: aSeller, Item: aItem, Market: aMarket, Price: 1_350_000_000},
			aItem: {Kind: chain.KindNftItem, Collection: aCollection, Index: "7", Owner: aBuyer},
		}
		got := nftClassifySynth(t, getgemsSaleTrace(t), known)
		tr := nftOnly(t, got, "NftItemTransfer")
		wantFields(t, tr, map[string]any{"sender": aSale, "recipient": aBuyer, "is_purchase": true, "price": "1350000000",
			"seller": aSeller, "marketplace": aMarket, "marketplace_name": "getgems", "payout_amount": "1372369010",
			"payout_address": aSeller, "collection": aCollection, "nft_index": "7", "forward_amount": "30000000"})
		if tr.status != "ok" || tr.txs != 5 {
			t.Errorf("transfer %s over %d txs, want ok over 5 (wallet, sale, item, assigned, excess)", tr.status, tr.txs)
		}
		p := nftOnly(t, got, "NftPurchase")
		wantFields(t, p, map[string]any{"buyer": aBuyer, "seller": aSeller, "sale_contract": aSale, "price": "1350000000",
			"payout_amount": "1372369010", "marketplace_name": "getgems"})
		if p.txs != 6 {
			t.Errorf("purchase over %d txs, want 6 (the transfer's and the payout)", p.txs)
		}
		fee := nftOnly(t, got, "TonTransfer")
		wantFields(t, fee, map[string]any{"recipient": aFee, "amount": "67500000"})
	})
	t.Run("unknown sale", func(t *testing.T) {
		got := nftClassifySynth(t, getgemsSaleTrace(t), nil)
		wantFields(t, nftOnly(t, got, "NftItemTransfer"), map[string]any{"is_purchase": true, "seller": aSeller,
			"price": "1650000000", "marketplace": nil, "marketplace_name": nil})
		wantFields(t, nftOnly(t, got, "NftPurchase"), map[string]any{"buyer": aBuyer, "seller": aSeller, "payout_amount": "1372369010"})
	})
	t.Run("item fails", func(t *testing.T) {
		root := getgemsSaleTrace(t)
		item := root.kids[0].kids[2]
		item.kids = nil
		item.fails()
		got := nftClassifySynth(t, root, nil)
		if a := nftOnly(t, got, "NftItemTransfer"); a.status != "failed" {
			t.Errorf("transfer %s, want failed", a.status)
		}
		if a := nftOnly(t, got, "NftPurchase"); a.status != "failed" {
			t.Errorf("purchase %s, want failed", a.status)
		}
	})
}

// bidInfo is the Telemint teleitem_bid_info payload of ownership_assigned.
func bidInfo(bid uint64) []any { return []any{op32(0x38127de1), grams(bid), op32(1_700_000_000)} }

func fillUp(t testing.TB) *boc.Cell { return nftCell(t, op32(0x370fec51), nftU64(1)) }
func outbid(t testing.TB) *boc.Cell { return nftCell(t, op32(0x557cea20), nftU64(1)) }
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
	purchase := func(prevBid bool) *synthNode {
		bid := tx(item, in(buyer, item, 4500*tonN, nil),
			tx(buyer, in(item, buyer, 10_000_000, assignedBody(t, 5, seller, bidInfo(4500*tonN)...))),
			tx(royalty, in(item, royalty, 224_999_000_000, fillUp(t))),
			tx(seller, in(item, seller, 4_274_977_607_063, fillUp(t))))
		if prevBid {
			bid.kids = append([]*synthNode{tx(aPrev, in(item, aPrev, 4000*tonN, outbid(t)))}, bid.kids...)
		}
		return tx(buyer, ext(buyer), bid)
	}
	for _, prevBid := range []bool{false, true} {
		got := nftClassifySynth(t, purchase(prevBid), chain.KnownContracts{item: teleitem()})
		tr := nftOnly(t, got, "NftItemTransfer")
		wantFields(t, tr, map[string]any{"sender": seller, "recipient": buyer, "nft": item, "is_purchase": true,
			"price": "4500000000000", "marketplace_name": "fragment", "royalty_amount": "224999000000", "royalty_address": royalty,
			"payout_amount": "4274977607063", "payout_address": seller, "query_id": "5", "collection": aCollection})
		if tr.txs != 5 {
			t.Errorf("transfer over %d txs, want 5 (wallet, bid, assigned, two fill-ups)", tr.txs)
		}
		wantFields(t, nftOnly(t, got, "NftPurchase"), map[string]any{"buyer": buyer, "seller": seller, "price": "4500000000000",
			"marketplace_name": "fragment", "sale_contract": nil})
		if !prevBid {
			if len(got) != 2 {
				t.Errorf("got %s, want the transfer and the purchase", kinds(got))
			}
			continue
		}
		// The payback of the previous bid stays a call, as toncenter
		// reports it (the bid belongs to the purchase).
		wantFields(t, nftOnly(t, got, "SmartContractExec"), map[string]any{"opcode": "0x557cea20", "contract": aPrev})
	}
	// Without indexer knowledge the bid info payload is enough.
	nftOnly(t, nftClassifySynth(t, purchase(false), nil), "NftPurchase")
}

func TestAuctionBids(t *testing.T) {
	t.Run("fragment", func(t *testing.T) {
		root := tx(aBuyer, ext(aBuyer), tx(aItem, in(aBuyer, aItem, 60*tonN, nil), tx(aPrev, in(aItem, aPrev, 50*tonN, outbid(t)))))
		for _, known := range []chain.KnownContracts{{aItem: teleitem()}, nil} {
			got := nftClassifySynth(t, root, known)
			bid := nftOnly(t, got, "AuctionBid")
			wantFields(t, bid, map[string]any{"bidder": aBuyer, "auction": aItem, "amount": "60000000000", "nft": aItem})
			o := nftOnly(t, got, "AuctionOutbid")
			wantFields(t, o, map[string]any{"auction": aItem, "bidder": aPrev, "new_bidder": aBuyer, "amount": "50000000000"})
			if known != nil {
				wantFields(t, bid, map[string]any{"auction_type": "fragment", "collection": aCollection, "nft_index": "99"})
			}
			if len(got) != 2 {
				t.Errorf("got %s, want the bid and the outbid nftOnly", kinds(got))
			}
		}
	})
	t.Run("getgems", func(t *testing.T) {
		root := tx(aBuyer, ext(aBuyer), tx(aAuction, in(aBuyer, aAuction, 12*tonN, nil),
			tx(aPrev, in(aAuction, aPrev, 9_994_423_000, nftComment(t, "Your bid has been outbid by another user.")))))
		known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem, Owner: aSeller, Market: aMarket},
			aItem: {Kind: chain.KindNftItem, Collection: aCollection, Index: "3"}}
		got := nftClassifySynth(t, root, known)
		wantFields(t, nftOnly(t, got, "AuctionBid"), map[string]any{"auction": aAuction, "nft": aItem, "collection": aCollection,
			"nft_index": "3", "auction_type": "getgems", "amount": "12000000000"})
		wantFields(t, nftOnly(t, got, "AuctionOutbid"), map[string]any{"bidder": aPrev, "new_bidder": aBuyer,
			"amount": "9994423000", "comment": "Your bid has been outbid by another user.", "auction_type": "getgems"})
	})
	t.Run("rejected", func(t *testing.T) {
		root := tx(aBuyer, ext(aBuyer), tx(aAuction, in(aBuyer, aAuction, tonN, nil)).fails())
		known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem}}
		if a := nftOnly(t, nftClassifySynth(t, root, known), "AuctionBid"); a.status != "failed" {
			t.Errorf("bid %s, want failed", a.status)
		}
	})
	t.Run("dns top-up is not a bid", func(t *testing.T) {
		root := tx(aBuyer, ext(aBuyer), tx(aItem, in(aBuyer, aItem, tonN, nil)))
		known := chain.KnownContracts{aItem: {Kind: chain.KindNftItem, Collection: aDnsCol}}
		got := nftClassifySynth(t, root, known)
		nftOnly(t, got, "TonTransfer")
	})
}

// getgemsAuctionEnd: a command to a Getgems auction that ends it
// (nft-auction-v3r3 handle::end_auction: fee, profit, then the item).
func getgemsAuctionEnd(t testing.TB, command *boc.Cell, winner string) *synthNode {
	return tx(aSeller, ext(aSeller),
		tx(aAuction, in(aSeller, aAuction, tonN, command),
			tx(aFee, in(aAuction, aFee, 500_000_000, nftComment(t, "Marketplace fee"))),
			tx(aSeller, in(aAuction, aSeller, 9*tonN, nftComment(t, "Profit"))),
			tx(aItem, in(aAuction, aItem, 400_000_000, nftTransferBody(t, 42, winner, aSeller, 1)),
				tx(winner, in(aItem, winner, 1, assignedBody(t, 42, aAuction))),
				tx(aSeller, in(aItem, aSeller, 300_000_000, excessBody(t, 42))))))
}

func TestGetgemsAuctionEnd(t *testing.T) {
	known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem, Owner: aSeller, Market: aMarket, Price: 10 * tonN}}
	for _, cmd := range []struct {
		name string
		body *boc.Cell
	}{{"comment", nftComment(t, "finish")}, {"op", nftCell(t, op32(0x20c9eb18), nftU64(0))}} {
		t.Run("finish by "+cmd.name, func(t *testing.T) {
			got := nftClassifySynth(t, getgemsAuctionEnd(t, cmd.body, aWinner), known)
			wantFields(t, nftOnly(t, got, "NftFinishAuction"), map[string]any{"owner": aWinner, "auction_contract": aAuction,
				"nft": aItem, "marketplace": aMarket, "finisher": aSeller})
			tr := nftOnly(t, got, "NftItemTransfer")
			wantFields(t, tr, map[string]any{"is_purchase": true, "price": "10000000000", "seller": aSeller, "recipient": aWinner})
			if tr.txs != 3 {
				t.Errorf("transfer over %d txs, want 3 (the finish command is the auction's own action)", tr.txs)
			}
			wantFields(t, nftOnly(t, got, "NftPurchase"), map[string]any{"payout_amount": "9000000000", "payout_comment": "Profit"})
			wantFields(t, nftOnly(t, got, "TonTransfer"), map[string]any{"comment": "Marketplace fee"})
		})
	}
	t.Run("cancel", func(t *testing.T) {
		root := tx(aSeller, ext(aSeller),
			tx(aAuction, in(aSeller, aAuction, tonN, nftComment(t, "cancel")),
				tx(aItem, in(aAuction, aItem, 900_000_000, nftTransferBody(t, 1, aSeller, aSeller, 0)),
					tx(aSeller, in(aItem, aSeller, 800_000_000, excessBody(t, 1))))))
		got := nftClassifySynth(t, root, known)
		wantFields(t, nftOnly(t, got, "NftCancelAuction"), map[string]any{"owner": aSeller, "auction_contract": aAuction,
			"nft": aItem, "marketplace": aMarket, "marketplace_name": "getgems"})
		wantFields(t, nftOnly(t, got, "NftItemTransfer"), map[string]any{"is_purchase": false, "recipient": aSeller})
		if len(got) != 2 {
			t.Errorf("got %s", kinds(got))
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
	cancel := tx(owner, ext(owner),
		tx(sale, in(owner, sale, 1_100_000_000, nftCell(t, op32(3), nftU64(77))),
			tx(item, in(sale, item, 1_000_000_000, nftTransferBody(t, 77, owner, owner, 0)),
				tx(owner, in(item, owner, 900_000_000, excessBody(t, 77))))))
	known := chain.KnownContracts{sale: {Kind: chain.KindNftSale, Item: item, Owner: owner, Market: aMarket}}
	got := nftClassifySynth(t, cancel, known)
	wantFields(t, nftOnly(t, got, "NftCancelSale"), map[string]any{"owner": owner, "sale_contract": sale, "nft": item,
		"marketplace": aMarket, "marketplace_name": "getgems", "canceller": owner, "query_id": "77"})
	wantFields(t, nftOnly(t, got, "NftItemTransfer"), map[string]any{"sender": sale, "recipient": owner, "nft": item})
	if len(got) != 2 {
		t.Errorf("got %s, want the cancel and the transfer", kinds(got))
	}
	// Unknown to the indexer: the item going back to the canceller is enough.
	wantFields(t, nftOnly(t, nftClassifySynth(t, cancel, nil), "NftCancelSale"), map[string]any{"owner": owner, "marketplace": nil})

	update := tx(aSeller, ext(aSeller), tx(aSale, in(aSeller, aSale, 50_000_000,
		nftCell(t, op32(0x6c6c2080), nftU64(5), grams(2*tonN), grams(100_000_000), grams(200_000_000)))))
	known = chain.KnownContracts{aSale: {Kind: chain.KindNftSale, Item: aItem, Owner: aSeller, Market: aMarket}}
	got = nftClassifySynth(t, update, known)
	wantFields(t, nftOnly(t, got, "NftUpdateSale"), map[string]any{"sender": aSeller, "sale_contract": aSale, "nft": aItem,
		"marketplace": aMarket, "full_price": "2000000000", "marketplace_fee": "100000000", "royalty_amount": "200000000", "query_id": "5"})
}

// listingTrace: the owner transfers the item to a marketplace contract,
// which deploys the sale (or auction) and transfers the item on to it.
func listingTrace(t testing.TB, saleData *boc.Cell, sale string) *synthNode {
	return tx(aSeller, ext(aSeller),
		tx(aItem, in(aSeller, aItem, 300_000_000, nftTransferBody(t, 9, aListing, aSeller, 200_000_000, text("x"))),
			tx(aListing, in(aItem, aListing, 200_000_000, assignedBody(t, 9, aSeller)),
				tx(sale, in(aListing, sale, 50_000_000, nil)).deploys(saleData),
				tx(aItem, in(aListing, aItem, 100_000_000, nftTransferBody(t, 9, sale, aListing, 1)),
					tx(sale, in(aItem, sale, 1, assignedBody(t, 9, aListing))),
					tx(aListing, in(aItem, aListing, 50_000_000, excessBody(t, 9))))),
			tx(aSeller, in(aItem, aSeller, 50_000_000, excessBody(t, 9)))))
}

func TestGetgemsListing(t *testing.T) {
	t.Run("sale v4r1", func(t *testing.T) {
		// nft-fixprice-sale-v4r1.fc storage: is_complete marketplace owner
		// full_price sold_at query_id ^(fee_address royalty_address
		// fee_percent:17 royalty_percent:17 nft created_at) jetton_prices.
		static := nftCell(t, aFee, aRoyalty, bits17(5000), bits17(10000), aItem, op32(1_700_000_000))
		data := nftCell(t, bitv(false), aMarket, noAddr{}, grams(3*tonN), op32(0), nftU64(0), static, bitv(false))
		known := chain.KnownContracts{aSale: {Kind: chain.KindNftSale, Item: aItem, Owner: aSeller, Market: aMarket}}
		got := nftClassifySynth(t, listingTrace(t, data, aSale), known)
		wantFields(t, nftOnly(t, got, "NftPutOnSale"), map[string]any{"owner": aSeller, "listing": aListing, "sale_contract": aSale,
			"nft": aItem, "marketplace": aMarket, "marketplace_name": "getgems", "full_price": "3000000000",
			"marketplace_fee": "150000000", "royalty_amount": "300000000", "marketplace_fee_address": aFee,
			"royalty_address": aRoyalty, "version": "v4r1"})
		var transfers int
		for _, a := range got {
			if a.typ == "NftItemTransfer" {
				transfers++
			}
		}
		if transfers != 2 {
			t.Errorf("got %s, want both item transfers beside the listing", kinds(got))
		}
	})
	t.Run("auction v3r3", func(t *testing.T) {
		fees := nftCell(t, aFee, aRoyalty)
		constant := nftCell(t, aMarket, grams(tonN), grams(100*tonN), grams(100_000_000), op32(300))
		data := nftCell(t, bitv(false), bitv(false), noAddr{}, grams(0), op32(0), op32(1_800_000_000), noAddr{}, nftU64(0),
			op32(5), op32(100), op32(10), op32(100), fees, constant)
		known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem, Owner: aSeller, Market: aMarket}}
		got := nftClassifySynth(t, listingTrace(t, data, aAuction), known)
		wantFields(t, nftOnly(t, got, "NftPutOnAuction"), map[string]any{"owner": aSeller, "auction_contract": aAuction,
			"marketplace": aMarket, "marketplace_fee_factor": "5", "marketplace_fee_base": "100", "royalty_fee_factor": "10",
			"royalty_fee_base": "100", "min_bid": "1000000000", "max_bid": "100000000000", "min_step": "100000000",
			"end_time": 1_800_000_000, "step_time": 300, "marketplace_fee_address": aFee, "royalty_address": aRoyalty})
	})
	t.Run("unknown contract", func(t *testing.T) {
		got := nftClassifySynth(t, listingTrace(t, nftCell(t, nftU64(1)), aSale), nil)
		for _, a := range got {
			if a.typ == "NftPutOnSale" || a.typ == "NftPutOnAuction" {
				t.Errorf("got %s for a contract of unknown code", a.typ)
			}
		}
	})
}

// bits17 is a 17-bit unsigned integer (v4 sale percents).
type bits17 uint32

func TestNftMintAndDiscovery(t *testing.T) {
	// A standard collection deploys item #5: data index:uint256
	// collection_address (getgems nft-collection.fc deploy_nft_item).
	root := tx(aSeller, ext(aSeller),
		tx(aCollection, in(aSeller, aCollection, 100_000_000, nftCell(t, op32(1), nftU64(0), nftU64(5))),
			tx(aItem, in(aCollection, aItem, 50_000_000, nftCell(t, aSeller, nftCell(t, text("meta.json"))))).
				deploys(nftCell(t, nftU256(5), aCollection))))
	got := nftClassifySynth(t, root, nil)
	wantFields(t, nftOnly(t, got, "NftMint"), map[string]any{"nft": aItem, "collection": aCollection, "nft_index": "5",
		"sender": aCollection, "owner": nil})
	nftOnly(t, got, "ContractDeploy")

	// The .ton DNS collection deploys an item for a comment "alice".
	dnsItem := nftAcct(0xD1)
	root = tx(aBuyer, ext(aBuyer),
		tx(aDnsCol, in(aBuyer, aDnsCol, 100*tonN, nftComment(t, "alice")),
			tx(dnsItem, in(aDnsCol, dnsItem, 99*tonN, nftCell(t, aBuyer, nftCell(t, text("alice"))))).
				deploys(nftCell(t, nftU256(12345), aDnsCol))))
	wantFields(t, nftOnly(t, nftClassifySynth(t, root, nil), "NftMint"), map[string]any{"domain": "alice.ton", "collection": aDnsCol})

	// get_static_data answered by report_static_data.
	root = tx(aOther, ext(aOther),
		tx(aItem, in(aOther, aItem, 50_000_000, nftCell(t, op32(0x2fcb26a2), nftU64(4))),
			tx(aOther, in(aItem, aOther, 40_000_000, nftCell(t, op32(0x8b771735), nftU64(4), nftU256(77), aCollection)))))
	got = nftClassifySynth(t, root, nil)
	wantFields(t, nftOnly(t, got, "NftDiscovery"), map[string]any{"sender": aOther, "nft": aItem, "collection": aCollection,
		"nft_index": "77", "query_id": "4"})
	if len(got) != 1 {
		t.Errorf("got %s", kinds(got))
	}
}

func TestTeleitemAuctionCommands(t *testing.T) {
	config := nftCell(t, aBenef, grams(10*tonN), grams(1000*tonN), u8(5), op32(3600), op32(86400))
	start := tx(aSeller, ext(aSeller),
		tx(aItem, in(aSeller, aItem, 100_000_000, nftCell(t, op32(0x487a8e81), nftU64(8), config)),
			tx(aSeller, in(aItem, aSeller, 90_000_000, nftCell(t, op32(0xa37a0983), nftU64(8))))))
	got := nftClassifySynth(t, start, chain.KnownContracts{aItem: teleitem()})
	a := nftOnly(t, got, "TeleitemStartAuction")
	wantFields(t, a, map[string]any{"owner": aSeller, "nft": aItem, "beneficiary": aBenef, "min_bid": "10000000000",
		"max_bid": "1000000000000", "min_bid_step": 5, "min_extend_time": 3600, "duration": 86400,
		"marketplace_name": "fragment", "collection": aCollection, "query_id": "8"})
	if len(got) != 1 || a.txs != 3 {
		t.Errorf("got %s over %d txs, want the start alone with teleitem_ok", kinds(got), a.txs)
	}
	cancel := tx(aSeller, ext(aSeller),
		tx(aItem, in(aSeller, aItem, 100_000_000, nftCell(t, op32(0x371638ae), nftU64(8)))).fails())
	wantFields(t, nftOnly(t, nftClassifySynth(t, cancel, nil), "TeleitemCancelAuction"), map[string]any{"owner": aSeller, "nft": aItem})
	if a := nftOnly(t, nftClassifySynth(t, cancel, nil), "TeleitemCancelAuction"); a.status != "failed" {
		t.Errorf("cancel %s, want failed", a.status)
	}
}

func dnsKey(name string) []byte {
	h := sha256.Sum256([]byte(name))
	return h[:]
}

func TestDnsActions(t *testing.T) {
	dnsItem := nftAcct(0xD1)
	known := chain.KnownContracts{dnsItem: {Kind: chain.KindNftItem, Collection: aDnsCol, Index: "1",
		Content: map[string]string{"domain": "alice.ton"}}}
	change := func(key []byte, value *boc.Cell) *synthNode {
		parts := []any{op32(0x4eb1f0f9), nftU64(3), key}
		if value != nil {
			parts = append(parts, value)
		}
		return tx(aSeller, ext(aSeller), tx(dnsItem, in(aSeller, dnsItem, 50_000_000, nftCell(t, parts...))))
	}
	t.Run("wallet record", func(t *testing.T) {
		got := nftClassifySynth(t, change(dnsKey("wallet"), nftCell(t, u16(0x9fd3), aOther, u8(0))), known)
		wantFields(t, nftOnly(t, got, "ChangeDns"), map[string]any{"sender": aSeller, "nft": dnsItem, "collection": aDnsCol,
			"category": "wallet", "value_schema": "DNSSmcAddress", "smc_address": aOther, "flags": 0, "domain": "alice.ton", "query_id": "3"})
		// The wallet record names aOther alice.ton in the address book;
		// without the item's domain, or for another record, nothing.
		names := actions.DNSNames(actions.Classify(build(t, change(dnsKey("wallet"), nftCell(t, u16(0x9fd3), aOther, u8(0)))), known))
		if len(names) != 1 || names[0] != (chain.DNSName{Domain: "alice.ton", Address: aOther}) {
			t.Errorf("DNSNames = %v, want alice.ton -> %s", names, aOther)
		}
		if names := actions.DNSNames(actions.Classify(build(t, change(dnsKey("wallet"), nftCell(t, u16(0x9fd3), aOther, u8(0)))), nil)); len(names) != 0 {
			t.Errorf("DNSNames without the domain = %v, want none", names)
		}
	})
	t.Run("site and storage", func(t *testing.T) {
		adnl := bytes.Repeat([]byte{0xAB}, 32)
		got := nftClassifySynth(t, change(dnsKey("site"), nftCell(t, u16(0xad01), adnl, u8(0))), known)
		wantFields(t, nftOnly(t, got, "ChangeDns"), map[string]any{"category": "site", "value_schema": "DNSAdnlAddress",
			"adnl_address": "abababababababababababababababababababababababababababababababab"})
		got = nftClassifySynth(t, change(dnsKey("storage"), nftCell(t, u16(0x7473), adnl)), known)
		wantFields(t, nftOnly(t, got, "ChangeDns"), map[string]any{"value_schema": "DNSStorageAddress",
			"storage_address": "abababababababababababababababababababababababababababababababab"})
	})
	t.Run("resolver and text", func(t *testing.T) {
		got := nftClassifySynth(t, change(dnsKey("dns_next_resolver"), nftCell(t, u16(0xba93), aOther)), nil)
		wantFields(t, nftOnly(t, got, "ChangeDns"), map[string]any{"value_schema": "DNSNextResolver", "next_resolver": aOther,
			"domain": nil, "collection": nil})
		got = nftClassifySynth(t, change(dnsKey("text"), nftCell(t, u16(0x1eda), u8(1), u8(5), text("hello"))), nil)
		wantFields(t, nftOnly(t, got, "ChangeDns"), map[string]any{"value_schema": "DNSText", "text": "hello", "category": nil})
	})
	t.Run("delete", func(t *testing.T) {
		wantFields(t, nftOnly(t, nftClassifySynth(t, change(dnsKey("site"), nil), known), "DeleteDns"),
			map[string]any{"category": "site", "nft": dnsItem, "domain": "alice.ton"})
	})
	t.Run("renew after an auction", func(t *testing.T) {
		// The winner's first request makes the item pay the bid to the
		// collection (dns-contract nft-item.fc: fill_up on auction end).
		root := change(make([]byte, 32), nil)
		root.kids[0].kids = []*synthNode{tx(aDnsCol, in(dnsItem, aDnsCol, 160*tonN, fillUp(t)))}
		got := nftClassifySynth(t, root, known)
		wantFields(t, nftOnly(t, got, "RenewDns"), map[string]any{"sender": aSeller, "nft": dnsItem, "domain": "alice.ton"})
		wantFields(t, nftOnly(t, got, "DnsPurchase"), map[string]any{"buyer": aSeller, "nft": dnsItem, "price": "160000000000",
			"payout_amount": "160000000000", "collection": aDnsCol, "domain": "alice.ton"})
		// Without indexer knowledge the DNS collection's address is enough.
		nftOnly(t, nftClassifySynth(t, root, nil), "DnsPurchase")
	})
	t.Run("release", func(t *testing.T) {
		root := tx(aBuyer, ext(aBuyer), tx(dnsItem, in(aBuyer, dnsItem, 10*tonN, nftCell(t, op32(0x4ed14b65), nftU64(6))),
			tx(aPrev, in(dnsItem, aPrev, 2*tonN, nftCell(t, op32(0x4ed14b65), nftU64(6))))))
		got := nftClassifySynth(t, root, known)
		wantFields(t, nftOnly(t, got, "DnsRelease"), map[string]any{"sender": aBuyer, "nft": dnsItem, "amount": "10000000000",
			"previous_owner": aPrev, "refund": "2000000000", "query_id": "6", "domain": "alice.ton"})
		wantFields(t, nftOnly(t, got, "SmartContractExec"), map[string]any{"opcode": "0x4ed14b65", "contract": aPrev})
	})
	t.Run("bid", func(t *testing.T) {
		root := tx(aBuyer, ext(aBuyer), tx(dnsItem, in(aBuyer, dnsItem, 20*tonN, nil), tx(aPrev, in(dnsItem, aPrev, 10*tonN, outbid(t)))))
		got := nftClassifySynth(t, root, known)
		wantFields(t, nftOnly(t, got, "AuctionBid"), map[string]any{"auction_type": "dns", "nft": dnsItem})
		wantFields(t, nftOnly(t, got, "AuctionOutbid"), map[string]any{"bidder": aPrev, "auction_type": "dns"})
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
	set := tx(owner, ext(owner), tx(item, in(owner, item, 50_000_000, bodyOf(t,
		"te6ccgEBAgEAVgABWE6x8PkAAAAAAAAAAOjUQFCHPbqGWqfBcKtMzmTZCDmjTc/Wz3HRTgIFRDsbAQBJn9OABZ52txkSPKL5Nbt7Q4Bw1BOZWXYcf17GFqOfkCpGS1lgEA=="))))
	wantFields(t, nftOnly(t, nftClassifySynth(t, set, nil), "ChangeDns"), map[string]any{"sender": owner, "nft": item,
		"key": "e8d44050873dba865aa7c170ab4cce64d90839a34dcfd6cf71d14e0205443b1b", "category": "wallet",
		"value_schema": "DNSSmcAddress", "smc_address": owner, "flags": 0, "query_id": "0"})

	renew := tx(owner, ext(owner), tx(item, in(owner, item, 20_000_000, bodyOf(t,
		"te6ccgEBAQEALgAAWE6x8PkAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
		tx(aDnsCol, in(item, aDnsCol, 160_937_090_759, nftCell(t, op32(0x370fec51), nftU64(0))))))
	got := nftClassifySynth(t, renew, nil)
	wantFields(t, nftOnly(t, got, "RenewDns"), map[string]any{"sender": owner, "nft": item})
	wantFields(t, nftOnly(t, got, "DnsPurchase"), map[string]any{"buyer": owner, "nft": item, "price": "160937090759",
		"collection": aDnsCol, "query_id": "0"})
	if len(got) != 2 {
		t.Errorf("got %s, want the renewal and the purchase", kinds(got))
	}
}

// A transfer whose forward payload is an inline text comment: the comment
// and the payload are read from the rest of the body, not from the whole
// body (whose first word is the transfer's own op code).
func TestNftTransferInlineComment(t *testing.T) {
	root := tx(aSeller, ext(aSeller),
		tx(aItem, in(aSeller, aItem, 100_000_000, nftTransferBody(t, 1, aBuyer, aSeller, 10_000_000, op32(0), text("gift for you"))),
			tx(aBuyer, in(aItem, aBuyer, 10_000_000, assignedBody(t, 1, aSeller, op32(0), text("gift for you")))),
			tx(aSeller, in(aItem, aSeller, 50_000_000, excessBody(t, 1)))))
	got := nftClassifySynth(t, root, nil)
	a := nftOnly(t, got, "NftItemTransfer")
	want, _ := nftComment(t, "gift for you").ToBocBase64()
	wantFields(t, a, map[string]any{"sender": aSeller, "recipient": aBuyer, "comment": "gift for you", "forward_payload": want,
		"forward_amount": "10000000", "response_destination": aSeller, "is_purchase": false})
	if a.txs != 4 || len(got) != 1 {
		t.Errorf("got %s, transfer over %d txs; want one transfer over 4", kinds(got), a.txs)
	}
	// An item that announces a new owner by itself keeps the comment too.
	root = tx(aItem, in(aCollection, aItem, 100_000_000, nftCell(t, op32(0x12345678), nftU64(1))),
		tx(aBuyer, in(aItem, aBuyer, 10_000_000, assignedBody(t, 1, aSeller, op32(0), text("hi")))))
	got = nftClassifySynth(t, root, chain.KnownContracts{aItem: {Kind: chain.KindNftItem, Collection: aCollection}})
	wantFields(t, nftOnly(t, got, "NftItemTransfer"), map[string]any{"sender": aSeller, "recipient": aBuyer, "comment": "hi", "collection": aCollection})
}
