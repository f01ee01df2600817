package actions_test

import (
	"testing"

	"github.com/tonql/tonql/chain"
)

// A .ton DNS item whose auction has ended pays the winning bid to the DNS
// collection (fill_up) on the winner's first request, whatever that request
// is (dns-contract nft-item.fc). toncenter makes the fill-up a dns_purchase
// when that request is a call (its parent block is a call_contract when the
// purchase matcher runs, before the NFT transfer matcher), and the request
// an action of its own; a plain transfer or a comment is a ton_transfer, and
// then the fill-up stays a call.
func TestDnsPurchaseAfterAnyCall(t *testing.T) {
	item := acct(0xD1)
	known := chain.KnownContracts{item: {Kind: chain.KindNftItem, Collection: aDnsCol, Index: "1"}}
	t.Run("first request an NFT transfer", func(t *testing.T) {
		root := ext(aWinner, call(item, 100_000_000, nftTransfer(1, aBuyer, aWinner, 10_000_000),
			call(aDnsCol, 160*tonN, fillUp()),
			call(aBuyer, 10_000_000, ownershipAssigned(1, aWinner)),
			call(aWinner, 50_000_000, excesses(1))))
		got := classify(t, root, known)
		got.expect(t, "NftItemTransfer:ok", "DnsPurchase:ok")
		p := got.one(t, "DnsPurchase")
		p.want(t, map[string]any{"buyer": aWinner, "nft": item, "collection": aDnsCol, "nft_index": "1",
			"price": "160000000000", "payout_amount": "160000000000", "query_id": "1"})
		p.wantTxs(t, 1) // the collection's fill-up alone, as toncenter merges it
	})
	for name, body := range map[string]*stx{
		"first request a plain transfer": call(item, 2*tonN, nil, call(aDnsCol, 160*tonN, fillUp())),
		"first request a comment":        call(item, 2*tonN, comment("hi"), call(aDnsCol, 160*tonN, fillUp())),
	} {
		t.Run(name, func(t *testing.T) {
			got := classify(t, ext(aWinner, body), known)
			got.expect(t, "TonTransfer:ok", "SmartContractExec:ok")
			got.one(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x370fec51", "contract": aDnsCol})
		})
	}
}

// A change the item refuses (not from its owner: dns-contract throws 401)
// bounces; toncenter's change_dns takes the bounce with it and fails.
func TestChangeDnsRefused(t *testing.T) {
	item := acct(0xD1)
	root := ext(aOther, call(item, 50_000_000, cellOf(op(0x4eb1f0f9), u64(3), raw(dnsKey("wallet")),
		ref(cellOf(u(0x9fd3, 16), addr(aOther), u(0, 8))))).fails(401).bouncesBack(40_000_000, nil))
	got := classify(t, root, nil)
	a := got.only(t, "ChangeDns:failed")
	a.want(t, map[string]any{"sender": aOther, "nft": item, "smc_address": aOther, "category": "wallet"})
	a.wantTxs(t, 3) // the wallet's external, the item, the bounce
}

// dns_balance_release to an item the indexer knows as another collection's
// is no DnsRelease: toncenter requires a .ton DNS item.
func TestDnsReleaseOnlyAtDnsItems(t *testing.T) {
	item := acct(0xD1)
	root := ext(aBuyer, call(item, 10*tonN, opQuery(0x4ed14b65, 6)))
	got := classify(t, root, chain.KnownContracts{item: {Kind: chain.KindNftItem, Collection: aCollection}})
	got.only(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x4ed14b65", "contract": item})
	got = classify(t, root, chain.KnownContracts{item: {Kind: chain.KindNftItem, Collection: aDnsCol, Index: "5"}})
	got.only(t, "DnsRelease").want(t, map[string]any{"sender": aBuyer, "nft": item, "collection": aDnsCol,
		"nft_index": "5", "amount": "10000000000", "query_id": "6"})
}
