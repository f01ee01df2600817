package actions

import (
	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
)

// NftItemTransfer: an NFT item changed owner (toncenter's nft_transfer).
type NftItemTransfer struct {
	Sender              Address `json:"sender,omitempty" role:"sender" tc:"old_owner" doc:"previous owner; absent when a collection deployed the item to its first owner"`
	Recipient           Address `json:"recipient,omitempty" role:"recipient" tc:"new_owner" doc:"new owner"`
	Nft                 Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the NFT item"`
	Collection          Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex            BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item in its collection, when known"`
	QueryID             BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the transfer request"`
	ForwardAmount       BigInt  `json:"forward_amount,omitempty" tc:"forward_amount" doc:"nanotons forwarded to the new owner with ownership_assigned"`
	ResponseDestination Address `json:"response_destination,omitempty" tc:"response_destination" doc:"where the excess TON goes"`
	Comment             string  `json:"comment,omitempty" tc:"comment" doc:"the forward payload's text comment"`
	Encrypted           *bool   `json:"encrypted,omitempty" tc:"is_encrypted_comment" doc:"true when the forward payload is an encrypted comment"`
	ForwardPayload      string  `json:"forward_payload,omitempty" tc:"forward_payload" doc:"the forward payload as a base64 BOC, when not empty"`
	CustomPayload       string  `json:"custom_payload,omitempty" tc:"custom_payload" doc:"the custom payload as a base64 BOC, when present"`
}

// NftPurchase: an NFT bought from a sale or auction contract.
type NftPurchase struct {
	Buyer        Address `json:"buyer,omitempty" role:"recipient" tc:"new_owner" doc:"who paid and received the item"`
	Seller       Address `json:"seller,omitempty" role:"sender" tc:"real_old_owner" doc:"who sold it (the owner behind the sale contract)"`
	Nft          Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the NFT item"`
	Collection   Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex     BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item in its collection, when known"`
	SaleContract Address `json:"sale_contract,omitempty" tc:"old_owner" doc:"the sale or auction contract"`
	Marketplace  Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace, when known"`
	Price        BigInt  `json:"price,omitempty" tc:"price" doc:"nanotons paid"`
}

func init() {
	declare(
		Type{Value: NftItemTransfer{}, Toncenter: "nft_transfer", Protocols: "TEP-62 NFT items",
			Doc:    "transfer (0x5fcc3d14) at the item; a freshly deployed item announcing its first owner (ownership_assigned) is a transfer from nobody.",
			Failed: "the item rejected the transfer"},
		Type{Value: NftPurchase{}, Toncenter: "nft_purchase", Protocols: "NFT sale and auction contracts",
			Doc:    "A contract paid by X that sends X the item (or a known sale or auction contract).",
			Failed: "the sale contract or the item failed"},
	)
	addMatcher(OrderProtocol+10, "NftPurchase", matchNftPurchase)
	addMatcher(OrderToken+30, "NftItemTransfer", matchNftTransfer)
}

// matchNftTransfer: an NFT item takes a transfer request, or a freshly
// deployed item announces its first owner (ownership_assigned right after
// the collection deployed it).
func matchNftTransfer(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced {
		return false
	}
	assigned := n.child(abi.NftOwnershipAssignedMsgOpCode)
	v := &NftItemTransfer{Nft: Address(n.tx.Account)}
	d := newDraft(v, m.Hash, n, assigned, n.child(abi.ExcessMsgOpCode), n.bouncedChild())
	if n.is(abi.NftTransferMsgOpCode) {
		body, ok := bodyAs[abi.NftTransferMsgBody](n)
		if !ok {
			return false
		}
		v.Sender, v.Recipient = Address(m.Source), Address(addr(body.NewOwner))
		v.QueryID = nano(body.QueryId)
		v.ForwardAmount = amount(body.ForwardAmount)
		v.ResponseDestination = Address(addr(body.ResponseDestination))
		p := nftPayloads(m.Body)
		v.ForwardPayload, v.CustomPayload = p.forward, p.custom
		p.setComment(&v.Comment, &v.Encrypted)
	} else if assigned != nil && (n.tx.OrigStatus == chain.AccountNonexist || n.tx.OrigStatus == chain.AccountUninit) {
		v.Recipient, v.Collection = Address(assigned.tx.Account), Address(m.Source)
	} else {
		return false
	}
	if k, ok := c.known[n.tx.Account]; ok {
		if k.Collection != "" {
			v.Collection = Address(k.Collection)
		}
		v.NftIndex = BigInt(k.Index)
	}
	d.withInitiator(n)
	d.ok = n.ok()
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
	v := &NftPurchase{Buyer: Address(newOwner), Nft: Address(item.tx.Account),
		SaleContract: Address(s.tx.Account), Marketplace: Address(k.Market)}
	d := newDraft(v, m.Hash, s).withInitiator(s)
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
	if ki, ok := c.known[item.tx.Account]; ok {
		v.Collection, v.NftIndex = Address(ki.Collection), BigInt(ki.Index)
	}
	v.Seller, v.Price = Address(seller), nano(price)
	d.ok = s.ok() && item.ok()
	c.add(d)
	return true
}
