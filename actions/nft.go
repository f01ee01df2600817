package actions

import (
	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
)

// matchNftTransfer: an NFT item takes a transfer request, or a freshly
// deployed item announces its first owner (ownership_assigned right after
// the collection deployed it).
func matchNftTransfer(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced {
		return false
	}
	assigned := n.child(abi.NftOwnershipAssignedMsgOpCode)
	var sender, recipient, collection string
	d := newDraft(chain.NftItemTransfer, m.Hash, n, assigned, n.child(abi.ExcessMsgOpCode), n.bouncedChild())
	if n.is(abi.NftTransferMsgOpCode) {
		body, ok := bodyAs[abi.NftTransferMsgBody](n)
		if !ok {
			return false
		}
		sender, recipient = m.Source, addr(body.NewOwner)
		d.set("query_id", uintString(body.QueryId))
		d.set("forward_amount", amount(body.ForwardAmount))
		d.set("response_destination", addr(body.ResponseDestination))
	} else if assigned != nil && (n.tx.OrigStatus == chain.AccountNonexist || n.tx.OrigStatus == chain.AccountUninit) {
		recipient, collection = assigned.tx.Account, m.Source
	} else {
		return false
	}
	if k, ok := c.known[n.tx.Account]; ok && k.Collection != "" {
		collection = k.Collection
	}
	d.withInitiator(n)
	d.ok = n.ok()
	d.set("sender", sender)
	d.set("recipient", recipient)
	d.set("nft", n.tx.Account)
	d.set("collection", collection)
	d.account(sender, chain.RoleSender)
	d.account(recipient, chain.RoleRecipient)
	d.account(n.tx.Account, chain.RoleContract)
	d.account(collection, chain.RoleMaster)
	c.add(d)
	return true
}

// matchNftPurchase: a buyer pays a sale (or auction) contract, which hands
// the NFT to the buyer and pays out the seller and fees. The transfer of the
// item itself stays for matchNftTransfer.
func matchNftPurchase(c *classifier, s *node) bool {
	m := s.in()
	if m == nil || m.IsExternalIn() || m.Bounced {
		return false
	}
	var item *node
	var newOwner string
	for _, ch := range s.children {
		if body, ok := bodyAs[abi.NftTransferMsgBody](ch); ok && ch.is(abi.NftTransferMsgOpCode) {
			item, newOwner = ch, addr(body.NewOwner)
			break
		}
	}
	if item == nil {
		return false
	}
	k, isSale := c.known[s.tx.Account]
	isSale = isSale && (k.Kind == chain.KindNftSale || k.Kind == chain.KindNftAuction)
	// Without indexer knowledge: whoever paid the contract got the NFT, and
	// paid more than the contract forwarded to the item.
	if !isSale && (newOwner != m.Source || m.Value <= item.in().Value) {
		return false
	}
	d := newDraft(chain.NftPurchase, m.Hash, s).withInitiator(s)
	seller, price := k.Owner, k.Price
	var best uint64
	for _, ch := range s.children {
		if ch == item || ch.hasOp && ch.op != 0 || ch.in().Bounced {
			continue
		}
		d.nodes = append(d.nodes, ch)
		if v := ch.in().Value; seller == "" && v > best && ch.tx.Account != newOwner {
			best = v
			seller = ch.tx.Account
		}
	}
	if price == 0 {
		price = m.Value
	}
	collection := ""
	if ki, ok := c.known[item.tx.Account]; ok {
		collection = ki.Collection
	}
	d.ok = s.ok() && item.ok()
	d.set("buyer", newOwner)
	d.set("seller", seller)
	d.set("nft", item.tx.Account)
	d.set("collection", collection)
	d.set("sale_contract", s.tx.Account)
	d.set("marketplace", k.Market)
	d.set("price", uintString(price))
	d.account(newOwner, chain.RoleRecipient)
	d.account(seller, chain.RoleSender)
	d.account(item.tx.Account, chain.RoleContract)
	d.account(s.tx.Account, chain.RoleOther)
	d.account(collection, chain.RoleMaster)
	c.add(d)
	return true
}
