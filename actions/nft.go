package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
)

// NftItemTransfer: an NFT item changed owner (toncenter's nft_transfer).
type NftItemTransfer struct {
	Sender              Address `json:"sender,omitempty" role:"sender" tc:"old_owner" doc:"previous owner (for a purchase: the sale or auction contract that sent the item); absent when a collection deployed the item to its first owner"`
	Recipient           Address `json:"recipient,omitempty" role:"recipient" tc:"new_owner" doc:"new owner"`
	Nft                 Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the NFT item"`
	Collection          Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex            BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item in its collection, when known"`
	QueryID             BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the transfer request (of ownership_assigned when the item announced an owner by itself)"`
	ForwardAmount       BigInt  `json:"forward_amount,omitempty" tc:"forward_amount" doc:"nanotons forwarded to the new owner with ownership_assigned"`
	ResponseDestination Address `json:"response_destination,omitempty" tc:"response_destination" doc:"where the excess TON goes"`
	Comment             Text    `json:"comment,omitempty" tc:"comment" doc:"the forward payload's text comment"`
	Encrypted           *bool   `json:"encrypted,omitempty" tc:"is_encrypted_comment" doc:"true when the forward payload is an encrypted comment"`
	ForwardPayload      Text    `json:"forward_payload,omitempty" tc:"forward_payload" doc:"the forward payload as a base64 BOC, when not empty"`
	CustomPayload       Text    `json:"custom_payload,omitempty" tc:"custom_payload" doc:"the custom payload as a base64 BOC, when present"`
	IsPurchase          *bool   `json:"is_purchase,omitempty" tc:"is_purchase" doc:"true when the item was sold: bought from a sale contract, won at an auction (Getgems, Fragment)"`
	Price               BigInt  `json:"price,omitempty" tc:"price" doc:"for a purchase: nanotons the buyer paid (the sale's full price, the winning bid)"`
	Seller              Address `json:"seller,omitempty" tc:"real_old_owner" doc:"for a purchase: the owner who listed the item, behind the sale or auction contract"`
	Marketplace         Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"for a purchase: the marketplace the sale or auction contract belongs to, when known"`
	MarketplaceName     Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"for a purchase: getgems (Getgems sale and auction contracts) or fragment (an auction run by a Telemint item itself; also when the item was deployed to the auction's winner, no purchase)"`
	PayoutAmount        BigInt  `json:"payout_amount,omitempty" tc:"payout_amount" doc:"for a purchase: nanotons paid out to the seller (Getgems) or to the auction's beneficiary (Fragment)"`
	PayoutAddress       Address `json:"payout_address,omitempty" tc:"payout_address" doc:"who received the payout"`
	PayoutComment       Text    `json:"payout_comment,omitempty" tc:"payout_comment" doc:"the payout's text comment (an encrypted one: its bytes, base64)"`
	PayoutEncrypted     *bool   `json:"payout_encrypted,omitempty" tc:"payout_comment_encrypted" doc:"true when the payout's comment is encrypted (toncenter's payout_comment_encoded is the same flag)"`
	RoyaltyAmount       BigInt  `json:"royalty_amount,omitempty" tc:"royalty_amount" doc:"for a Fragment purchase: nanotons the item paid to the royalty address"`
	RoyaltyAddress      Address `json:"royalty_address,omitempty" tc:"royalty_address" doc:"who received the royalty"`
}

// NftPurchase: an NFT bought from a sale or auction contract, or won at an
// auction an item runs itself (Telemint).
type NftPurchase struct {
	Buyer               Address `json:"buyer,omitempty" role:"recipient" tc:"new_owner" doc:"who paid and received the item"`
	Seller              Address `json:"seller,omitempty" role:"sender" tc:"real_old_owner" doc:"who sold it (the owner behind the sale contract; the previous owner of a Telemint item)"`
	Nft                 Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the NFT item"`
	Collection          Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex            BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item in its collection, when known"`
	SaleContract        Address `json:"sale_contract,omitempty" tc:"old_owner" doc:"the sale or auction contract; absent when the item ran the auction itself (Telemint)"`
	Marketplace         Address `json:"marketplace,omitempty" tc:"marketplace_address" doc:"the marketplace, when known"`
	MarketplaceName     Text    `json:"marketplace_name,omitempty" tc:"marketplace" doc:"getgems or fragment, when known"`
	Price               BigInt  `json:"price,omitempty" tc:"price" doc:"nanotons paid"`
	QueryID             BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the item's transfer (or ownership_assigned)"`
	ForwardAmount       BigInt  `json:"forward_amount,omitempty" tc:"forward_amount" doc:"nanotons the item forwarded to the buyer with ownership_assigned"`
	ResponseDestination Address `json:"response_destination,omitempty" tc:"response_destination" doc:"where the item sent the excess TON"`
	Comment             Text    `json:"comment,omitempty" tc:"comment" doc:"the transfer's forward payload text comment"`
	Encrypted           *bool   `json:"encrypted,omitempty" tc:"is_encrypted_comment" doc:"true when the forward payload is an encrypted comment"`
	ForwardPayload      Text    `json:"forward_payload,omitempty" tc:"forward_payload" doc:"the transfer's forward payload as a base64 BOC, when not empty"`
	CustomPayload       Text    `json:"custom_payload,omitempty" tc:"custom_payload" doc:"the transfer's custom payload as a base64 BOC, when present"`
	PayoutAmount        BigInt  `json:"payout_amount,omitempty" tc:"payout_amount" doc:"nanotons paid out to the seller (Getgems) or to the auction's beneficiary (Fragment)"`
	PayoutAddress       Address `json:"payout_address,omitempty" tc:"payout_address" doc:"who received the payout"`
	PayoutComment       Text    `json:"payout_comment,omitempty" tc:"payout_comment" doc:"the payout's text comment (an encrypted one: its bytes, base64)"`
	PayoutEncrypted     *bool   `json:"payout_encrypted,omitempty" tc:"payout_comment_encrypted" doc:"true when the payout's comment is encrypted"`
	RoyaltyAmount       BigInt  `json:"royalty_amount,omitempty" tc:"royalty_amount" doc:"nanotons paid to the royalty address (Fragment)"`
	RoyaltyAddress      Address `json:"royalty_address,omitempty" tc:"royalty_address" doc:"who received the royalty"`
}

// NftMint: a collection deployed an NFT item.
type NftMint struct {
	Nft        Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the new NFT item"`
	Collection Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection"`
	NftIndex   BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item in its collection (from the indexer, else the item's initial data)"`
	Sender     Address `json:"sender,omitempty" role:"sender" tc:"owner" doc:"who sent the deploying message: the collection, as a rule (toncenter's details call it owner)"`
	Owner      Address `json:"owner,omitempty" role:"recipient" doc:"the first owner, when the item announced it (ownership_assigned)"`
	Opcode     Text    `json:"opcode,omitempty" doc:"op code of the deploying message, 0x + 8 hex digits, when it has one"`
	Domain     Text    `json:"domain,omitempty" doc:"for a .ton DNS item: its domain, from the deploying message"`
}

// NftDiscovery: an account asked an item for its collection and index
// (get_static_data) and got the answer (report_static_data).
type NftDiscovery struct {
	Sender     Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who asked"`
	Nft        Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the NFT item asked"`
	Collection Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"the collection the item reported"`
	NftIndex   BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"the index the item reported"`
	QueryID    BigInt  `json:"query_id,omitempty" doc:"query id of the report"`
}

func init() {
	declare(
		Type{Value: NftItemTransfer{}, Title: "NFT transfer", Describe: describeAs(func(v *NftItemTransfer, w *Words) string {
			return with("Sent "+w.NFT(v.Nft, v.Collection)+" to "+w.Account(v.Recipient), w.comment(v.Comment, v.Encrypted))
		}),
			Toncenter: "nft_transfer", Protocols: "TEP-62 NFT items; Getgems sales and auctions; Telemint items",
			Doc:     "transfer (0x5fcc3d14) at the item, with ownership_assigned and excesses. A transfer sent by a Getgems sale or auction contract to someone other than the seller is a purchase (is_purchase, price, seller, marketplace; the buyer's payment or the auction's external finish belong to it). An item that announces an owner by itself (ownership_assigned 0x05138d91, not after a transfer request) is a transfer from its previous owner, or from nobody right after its deploy; with Telemint's bid info payload it is a Fragment purchase (the winning bid, the royalty and beneficiary fill-ups belong to it) unless the item was just minted.",
			Failed:  "the item rejected the transfer (one that carried no TON never fails, toncenter's rule for calls)",
			Differs: "toncenter reports transfers only of items its indexer knows, and no purchase without its knowledge of the sale contract"},
		Type{Value: NftPurchase{}, Title: "NFT purchase", Describe: describeAs(func(v *NftPurchase, w *Words) string {
			return "Bought " + w.NFT(v.Nft, v.Collection) + " for " + w.TON(v.Price) + " from " + w.Account(v.Seller) + w.on(v.MarketplaceName)
		}),
			Toncenter: "nft_purchase", Protocols: "Getgems sale and auction contracts; other sale contracts; Telemint (Fragment) auctions",
			Doc:     "A purchase transfer (see NftItemTransfer) together with the payout to the seller: the Getgems sale's or auction's TON transfer to the owner it holds the item for; without indexer knowledge, a contract paid by X that sends X the item and pays someone else (X's payment then stays a TonTransfer of its own, as toncenter, which sees no sale there, reports it). A Fragment purchase (Telemint bid info) is one too, with the royalty and the beneficiary's payout.",
			Failed:  "the item rejected the transfer",
			Differs: "toncenter reports a Fragment purchase only as nft_transfer with is_purchase, none after a Getgems auction finished by op code (it seeks the payout among the transfer's own steps), and never marks nft_purchase failed"},
		Type{Value: NftMint{}, Title: "NFT mint", Describe: describeAs(func(v *NftMint, w *Words) string {
			return "Minted " + w.NFT(v.Nft, v.Collection) + " to " + w.Account(v.Owner)
		}),
			Toncenter: "nft_mint", Protocols: "TEP-62 NFT collections, .ton DNS, Telemint, Tonstakers payout NFTs",
			Doc:     "A transaction that deploys an NFT item: known to the indexer as an item, or whose initial data names its index and the deploying collection, or that announces its first owner (ownership_assigned).",
			Failed:  "the item's deploy transaction failed",
			Differs: "toncenter needs the indexer to know the item; it never marks nft_mint failed"},
		Type{Value: NftDiscovery{}, Title: "NFT discovery", Describe: describeAs(func(v *NftDiscovery, w *Words) string {
			return "Asked " + w.NFT(v.Nft, v.Collection) + " for its collection and index"
		}),
			Toncenter: "nft_discovery", Protocols: "TEP-62 NFT items",
			Doc:    "get_static_data (0x2fcb26a2) at the item, answered by report_static_data (0x8b771735).",
			Failed: "never (without an answer it is a call)"},
	)
	addMatcher(OrderProtocol+10, "NftPurchase", matchNftPurchase)
	addMatcher(OrderToken+25, "NftMint", matchNftMint)
	addMatcher(OrderToken+30, "NftItemTransfer", matchNftTransfer)
	addMatcher(OrderToken+32, "NftOwnershipAssigned", matchOwnershipAssigned)
	addMatcher(OrderToken+42, "NftDiscovery", matchNftDiscovery)
}

// itemFacts is the collection and index of an NFT item, when known.
func (c *classifier) itemFacts(item string) (Address, BigInt) {
	if k, ok := c.known[item]; ok {
		return Address(k.Collection), BigInt(k.Index)
	}
	return "", ""
}

// nftTransferStep is an item's transfer request with the replies that
// belong to it.
type nftTransferStep struct {
	item, assigned, excess, bounce *node
	body                           abi.NftTransferMsgBody
	value                          *NftItemTransfer
}

// nftTransferAt reads the transfer request an item (n) took.
func (c *classifier) nftTransferAt(n *node) (*nftTransferStep, bool) {
	if !n.is(abi.NftTransferMsgOpCode) {
		return nil, false
	}
	body, ok := bodyAs[abi.NftTransferMsgBody](n)
	if !ok {
		return nil, false
	}
	m := n.in()
	st := &nftTransferStep{item: n, body: body,
		assigned: n.child(abi.NftOwnershipAssignedMsgOpCode),
		excess:   n.child(abi.ExcessMsgOpCode), bounce: n.bouncedChild()}
	v := &NftItemTransfer{Sender: Address(m.Source), Recipient: Address(addr(body.NewOwner)),
		Nft: Address(n.tx.Account), QueryID: nano(body.QueryId), ForwardAmount: amount(body.ForwardAmount),
		ResponseDestination: Address(addr(body.ResponseDestination)), IsPurchase: flag(false)}
	if st.assigned != nil {
		// toncenter names the previous owner from ownership_assigned.
		if a, ok := assignedOf(st.assigned); ok && a.prevOwner != "" {
			v.Sender = Address(a.prevOwner)
		}
	}
	p := nftPayloads(m.Body)
	v.ForwardPayload, v.CustomPayload = Text(p.forward), Text(p.custom)
	p.setComment(&v.Comment, &v.Encrypted)
	v.Collection, v.NftIndex = c.itemFacts(n.tx.Account)
	st.value = v
	return st, true
}

func (st *nftTransferStep) nodes() []*node {
	return []*node{st.item, st.assigned, st.excess, st.bounce}
}

// matchNftTransfer: an NFT item takes a transfer request.
func matchNftTransfer(c *classifier, n *node) bool {
	st, ok := c.nftTransferAt(n)
	if !ok {
		return false
	}
	d := newDraft(st.value, n.in().Hash, st.nodes()...).withInitiator(n)
	d.ok = !callFailed(n)
	c.add(d)
	return true
}

// matchNftPurchase: an item takes a transfer request from a sale or auction
// contract that sells it: the transfer is a purchase, and with the payout to
// the seller an NftPurchase.
func matchNftPurchase(c *classifier, n *node) bool {
	st, ok := c.nftTransferAt(n)
	if !ok {
		return false
	}
	deal, ok := c.saleDealOf(st)
	if !ok {
		return false
	}
	v := st.value
	v.IsPurchase, v.Price, v.Seller = flag(true), deal.price, Address(deal.seller)
	v.Marketplace, v.MarketplaceName = Address(deal.market), Text(deal.marketName)
	nodes := st.nodes()
	var head = n
	if deal.includeSale {
		nodes = append(nodes, deal.sale)
		head = deal.sale
	}
	if deal.payout != nil {
		v.PayoutAmount, v.PayoutAddress = nano(deal.payout.in().Value), Address(deal.payout.tx.Account)
		setPayoutComment(deal.payout, &v.PayoutComment, &v.PayoutEncrypted)
	}
	d := newDraft(v, n.in().Hash, nodes...).withInitiator(head)
	d.ok = !callFailed(n)
	if deal.payout == nil {
		c.add(d)
		return true
	}
	pv := &NftPurchase{Buyer: v.Recipient, Seller: v.Seller, Nft: v.Nft, Collection: v.Collection, NftIndex: v.NftIndex,
		SaleContract: Address(deal.sale.tx.Account), Marketplace: v.Marketplace, MarketplaceName: v.MarketplaceName,
		Price: v.Price, QueryID: v.QueryID, ForwardAmount: v.ForwardAmount, ResponseDestination: v.ResponseDestination,
		Comment: v.Comment, Encrypted: v.Encrypted, ForwardPayload: v.ForwardPayload, CustomPayload: v.CustomPayload,
		PayoutAmount: v.PayoutAmount, PayoutAddress: v.PayoutAddress, PayoutComment: v.PayoutComment, PayoutEncrypted: v.PayoutEncrypted}
	pd := newDraft(pv, n.in().Hash, append(nodes, deal.payout)...).withInitiator(head)
	pd.ok = d.ok
	c.addWithSteps(pd, d)
	return true
}

// saleDeal is what makes a transfer a purchase: the contract that sent it
// sells the item to the new owner.
type saleDeal struct {
	sale        *node // the sale or auction contract's transaction
	includeSale bool  // the sale's transaction belongs to the purchase (the buyer's payment, an external finish)
	seller      string
	market      string
	marketName  string
	price       BigInt
	payout      *node // the TON transfer to the seller
}

// saleDealOf decides whether the transfer st was a sale, the way toncenter
// does: a Getgems sale paid by the new owner with a plain TON transfer, or a
// Getgems auction, that hands the item to someone other than the owner it
// held it for. Without indexer knowledge: a contract paid by the new owner
// (more than it forwarded to the item) that hands it the item and pays
// someone else.
func (c *classifier) saleDealOf(st *nftTransferStep) (*saleDeal, bool) {
	s := st.item.parent
	if s == nil || s.in() == nil || s.in().Bounced || s.tx.Account != st.item.in().Source {
		return nil, false
	}
	newOwner := string(st.value.Recipient)
	m := s.in()
	ton, text := tonTransferOf(s)
	k, known := c.known[s.tx.Account]
	deal := &saleDeal{sale: s}
	switch {
	case known && k.Kind == chain.KindNftSale:
		if !ton || m.Source != newOwner {
			return nil, false
		}
		deal.seller, deal.market, deal.marketName, deal.price = k.Owner, k.Market, "getgems", nano(k.Price)
	case known && k.Kind == chain.KindNftAuction:
		deal.seller, deal.market, deal.marketName, deal.price = k.Owner, k.Market, "getgems", nano(k.Price)
	case known && k.Kind != "":
		return nil, false
	default:
		if !ton || m.Source != newOwner || m.Value <= st.item.in().Value {
			return nil, false
		}
		var best uint64
		for _, ch := range s.children {
			if ch == st.item || ch.used || ch.in().Bounced || ch.tx.Account == newOwner {
				continue
			}
			if isTon, _ := tonTransferOf(ch); isTon && ch.in().Value > best {
				best, deal.seller = ch.in().Value, ch.tx.Account
			}
		}
		deal.price = nano(m.Value)
	}
	if known && k.Item != "" && k.Item != st.item.tx.Account {
		return nil, false
	}
	if deal.seller == "" || deal.seller == newOwner {
		return nil, false
	}
	if deal.price == "0" {
		deal.price = ""
	}
	// The buyer's payment belongs to the purchase; a finish or stop command
	// is the auction's own action (NftFinishAuction), and an external
	// message (the owner finishing the auction) belongs to the purchase.
	// A contract the indexer does not know as a sale or auction: the
	// purchase is ours alone, and the buyer's payment stays the TonTransfer
	// toncenter reports (it sees a plain transfer there).
	deal.includeSale = !s.used && known && k.Kind != "" && (m.IsExternalIn() || ton && text != "finish" && text != "stop")
	for _, ch := range s.children {
		if ch == st.item || ch.used || ch.in().Bounced || ch.tx.Account != deal.seller {
			continue
		}
		if isTon, _ := tonTransferOf(ch); isTon {
			deal.payout = ch
			break
		}
	}
	return deal, true
}

// tonTransferOf reports whether n's in-message is a plain TON transfer (no
// op code, a text comment or an encrypted comment, from an account), and
// its text comment.
func tonTransferOf(n *node) (bool, string) {
	m := n.in()
	if m == nil || m.IsExternalIn() {
		return false, ""
	}
	if !n.hasOp {
		return true, ""
	}
	switch n.op {
	case uint32(abi.TextCommentMsgOpCode):
		text, _ := commentOf(m.Body)
		return true, text
	case uint32(abi.EncryptedTextCommentMsgOpCode):
		return true, ""
	}
	return false, ""
}

// setPayoutComment fills a payout's comment fields from its message.
func setPayoutComment(n *node, comment *Text, encrypted **bool) {
	*encrypted = flag(false)
	if !n.hasOp {
		return
	}
	switch n.op {
	case uint32(abi.TextCommentMsgOpCode):
		text, _ := commentOf(n.in().Body)
		*comment, *encrypted = Text(text), flag(false)
	case uint32(abi.EncryptedTextCommentMsgOpCode):
		// toncenter carries the encrypted bytes as the comment, base64.
		*comment, *encrypted = Text(encryptedCommentOf(n.in().Body)), flag(true)
	}
}

// deploysAccount reports a transaction that brought its account to life.
func deploysAccount(tx *chain.Transaction) bool {
	return tx.EndStatus == chain.AccountActive && (tx.OrigStatus == chain.AccountNonexist || tx.OrigStatus == chain.AccountUninit)
}

// matchNftMint: a transaction that deploys an NFT item.
func matchNftMint(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced || !deploysAccount(n.tx) {
		return false
	}
	k, known := c.known[n.tx.Account]
	if known && k.Kind == chain.KindJettonWallet {
		// What the indexer knows as a jetton wallet is not an item: its
		// state init need not be read (most deploys in a trace are these).
		return false
	}
	init := nftItemInit(n)
	assigned := n.child(abi.NftOwnershipAssignedMsgOpCode)
	isItem := known && k.Kind == chain.KindNftItem || init.ok && init.collection == m.Source || assigned != nil
	if !isItem {
		return false
	}
	v := &NftMint{Nft: Address(n.tx.Account), Sender: Address(m.Source)}
	if known && k.Kind == chain.KindNftItem {
		v.Collection, v.NftIndex = Address(k.Collection), BigInt(k.Index)
	}
	if v.Collection == "" && init.ok && init.collection == m.Source {
		v.Collection = Address(init.collection)
	}
	if v.NftIndex == "" && init.ok && init.collection == m.Source {
		v.NftIndex = init.index
	}
	if assigned != nil {
		v.Owner = Address(assigned.tx.Account)
	}
	if m.Source == dnsCollection {
		// The DNS collection's deploying message has no op code: its body
		// starts with the first bidder's address.
		v.Domain = Text(dnsDeployDomain(m.Body))
	} else if n.hasOp {
		v.Opcode = Text(opcodeString(n.op))
	}
	if v.Domain == "" {
		v.Domain = Text(c.domainOf(n.tx.Account))
	}
	d := newDraft(v, m.Hash, n)
	d.ok = n.ok()
	c.add(d)
	return true
}

// matchOwnershipAssigned: an item announces an owner without a transfer
// request: right after its deploy (a mint), or at the end of an auction it
// runs itself (Telemint: the payload carries the winning bid).
func matchOwnershipAssigned(c *classifier, a *node) bool {
	p := a.parent
	if !a.is(abi.NftOwnershipAssignedMsgOpCode) || p == nil || p.is(abi.NftTransferMsgOpCode) {
		return false
	}
	info, ok := assignedOf(a)
	if !ok {
		return false
	}
	item := a.in().Source
	k, known := c.known[item]
	minted := deploysAccount(p.tx) || p.is(abi.TeleitemDeployMsgOpCode)
	if !(known && k.Kind == chain.KindNftItem) && !minted && !info.hasBid {
		return false
	}
	v := &NftItemTransfer{Sender: Address(info.prevOwner), Recipient: Address(a.tx.Account), Nft: Address(item),
		QueryID: nano(info.queryID), ForwardPayload: Text(info.payload), IsPurchase: flag(false)}
	info.comment.setComment(&v.Comment, &v.Encrypted)
	v.Collection, v.NftIndex = c.itemFacts(item)
	if v.Collection == "" && p.in() != nil && minted {
		v.Collection = Address(p.in().Source)
	}
	nodes := []*node{a}
	var pv *NftPurchase
	if info.hasBid {
		// Telemint's bid info names the marketplace even when the item
		// was deployed to the auction's winner (not a purchase), as in
		// toncenter's row.
		v.MarketplaceName = "fragment"
	}
	if info.hasBid && !minted {
		v.IsPurchase, v.Price = flag(true), info.bid
		ton, _ := tonTransferOf(p)
		if !p.used && (ton || p.in() != nil && p.in().IsExternalIn()) {
			var fills []*node
			for _, ch := range p.children {
				if !ch.used && ch.is(abi.AuctionFillUpMsgOpCode) {
					fills = append(fills, ch)
				}
			}
			// The royalty, when paid, is sent before the beneficiary's payout.
			switch {
			case len(fills) > 1:
				v.RoyaltyAmount, v.RoyaltyAddress = nano(fills[0].in().Value), Address(fills[0].tx.Account)
				v.PayoutAmount, v.PayoutAddress = nano(fills[1].in().Value), Address(fills[1].tx.Account)
			case len(fills) == 1:
				v.PayoutAmount, v.PayoutAddress = nano(fills[0].in().Value), Address(fills[0].tx.Account)
			}
			nodes = append(append(nodes, fills...), p)
		}
		pv = &NftPurchase{Buyer: v.Recipient, Seller: v.Sender, Nft: v.Nft, Collection: v.Collection, NftIndex: v.NftIndex,
			MarketplaceName: "fragment", Price: v.Price, QueryID: v.QueryID, ForwardPayload: v.ForwardPayload,
			PayoutAmount: v.PayoutAmount, PayoutAddress: v.PayoutAddress, RoyaltyAmount: v.RoyaltyAmount, RoyaltyAddress: v.RoyaltyAddress}
	}
	d := newDraft(v, a.in().Hash, nodes...)
	if len(nodes) > 1 {
		d.withInitiator(p)
	}
	if pv == nil {
		c.add(d)
		return true
	}
	c.addWithSteps(newDraft(pv, a.in().Hash, d.nodes...), d)
	return true
}

// matchNftDiscovery: get_static_data answered by report_static_data.
func matchNftDiscovery(c *classifier, n *node) bool {
	if !n.is(abi.GetStaticDataMsgOpCode) {
		return false
	}
	report := n.child(abi.ReportStaticDataMsgOpCode)
	if report == nil {
		return false
	}
	body, ok := bodyAs[abi.ReportStaticDataMsgBody](report)
	if !ok {
		return false
	}
	idx := big.Int(body.Index)
	v := &NftDiscovery{Sender: Address(n.in().Source), Nft: Address(n.tx.Account),
		Collection: Address(addr(body.Collection)), NftIndex: BigInt(idx.String()), QueryID: nano(body.QueryId)}
	d := newDraft(v, n.in().Hash, n, report, n.bouncedChild()).withInitiator(n)
	c.add(d)
	return true
}
