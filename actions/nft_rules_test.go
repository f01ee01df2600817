package actions_test

import (
	"encoding/base64"
	"testing"

	"github.com/tonql/tonql/chain"
)

// Status rules and facts of the NFT family that follow toncenter's
// classifier: its call and TON-transfer status rules, the Telemint bid info
// on a mint, the encrypted payout comment, Getgems v4r1 fees.

// An NFT transfer that carried no TON and aborted cost its sender nothing:
// toncenter's rule for calls leaves it ok; one that carried TON is failed.
func TestNftTransferFreeCallStatus(t *testing.T) {
	free := ext(aSeller, call(aItem, 0, nftTransfer(1, aBuyer, aSeller, 0)).fails(0))
	classify(t, free, nil).one(t, "NftItemTransfer:ok")
	paid := ext(aSeller, call(aItem, 50_000_000, nftTransfer(1, aBuyer, aSeller, 0)).fails(0))
	classify(t, paid, nil).one(t, "NftItemTransfer:failed")
}

func TestAuctionBidRules(t *testing.T) {
	t.Run("teleitem #topup is a bid", func(t *testing.T) {
		// While an auction runs, a Telemint item takes any plain transfer
		// as a bid (nft-item.fc: op 0 goes to process_new_bid before the
		// top-up check); toncenter reports every TON transfer to it so.
		root := ext(aBuyer, call(aItem, 20*tonN, comment("#topup")))
		classify(t, root, chain.KnownContracts{aItem: teleitem()}).one(t, "AuctionBid").
			want(t, map[string]any{"bidder": aBuyer, "auction": aItem, "auction_type": "fragment", "amount": "20000000000"})
	})
	t.Run("non-bounceable bid without gas", func(t *testing.T) {
		// A non-bounceable bid whose compute phase was skipped for lack of
		// gas credited the coins: toncenter's TON-transfer rule keeps it ok.
		bid := call(aAuction, 1, nil).bounceable(false).edit(func(tx *chain.Transaction) {
			tx.Aborted, tx.ComputeSkipped, tx.ComputeSuccess, tx.ActionSuccess = true, true, false, false
		})
		known := chain.KnownContracts{aAuction: {Kind: chain.KindNftAuction, Item: aItem}}
		classify(t, ext(aBuyer, bid), known).one(t, "AuctionBid:ok")
	})
}

// A Telemint collection deploys an item straight to the winner of its first
// auction: the bid info names Fragment, but the first owner bought nothing
// from anyone (toncenter: is_purchase false, marketplace fragment).
func TestTelemintMintBidInfo(t *testing.T) {
	root := ext(aSeller,
		call(aCollection, 10*tonN, opQuery(0x4637289b, 0),
			call(aItem, 9*tonN, opQuery(0x299a3e15, 0),
				call(aWinner, 1, ownershipAssigned(3, aWinner, bidInfo(9*tonN)...))).
				deploys(cellOf(u(0, 1)))))
	tr := classify(t, root, chain.KnownContracts{aItem: teleitem()}).one(t, "NftItemTransfer")
	tr.want(t, map[string]any{"recipient": aWinner, "is_purchase": false, "marketplace_name": "fragment", "price": nil})
}

// A Getgems payout with an encrypted comment: toncenter's payout_comment is
// the encrypted bytes, base64.
func TestNftPurchaseEncryptedPayout(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	root := getgemsSaleTrace()
	root.kids[0].kids[0].body = cellOf(op(0x2167da4b), raw(secret))
	known := chain.KnownContracts{aSale: {Kind: chain.KindNftSale, Owner: aSeller, Item: aItem, Market: aMarket, Price: 1_350_000_000}}
	got := classify(t, root, known)
	got.one(t, "NftPurchase").want(t, map[string]any{"payout_encrypted": true,
		"payout_comment": base64.StdEncoding.EncodeToString(secret)})
}

// A v4r1 sale pays nothing to an absent fee address
// (nft-fixprice-sale-v4r1.fc buy_logic).
func TestGetgemsSaleV4NoFeeAddress(t *testing.T) {
	static := cellOf(addr(""), addr(aRoyalty), u(5000, 17), u(10000, 17), addr(aItem), u(1_700_000_000, 32))
	data := cellOf(bit(false), addr(aMarket), addr(""), coins(3*tonN), u(0, 32), u64(0), ref(static), bit(false))
	known := chain.KnownContracts{aSale: {Kind: chain.KindNftSale, Item: aItem, Owner: aSeller, Market: aMarket}}
	got := classify(t, listingTrace(data, aSale), known)
	got.one(t, "NftPutOnSale").want(t, map[string]any{"marketplace_fee": "0", "royalty_amount": "300000000",
		"marketplace_fee_address": nil, "royalty_address": aRoyalty})
}
