package actions

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// dnsCollection is the .ton DNS root collection (ton-blockchain/dns-contract
// deployed on mainnet; toncenter's indexer names the same address).
const dnsCollection = "0:B774D95EB20543F186C06B371AB88AD704F7E256130CAF96189368A7D0CB6CCF"

// DNS item op codes (ton-blockchain/dns-contract, TelegramMessenger/telemint).
const (
	opChangeDnsRecord   = 0x4eb1f0f9 // change_dns_record query_id:uint64 key:uint256 value:(Maybe ^DNSRecord)
	opDnsBalanceRelease = 0x4ed14b65 // dns_balance_release query_id:uint64
	opAuctionFillUp     = 0x370fec51 // fill_up query_id:uint64
	opOutbid            = 0x557cea20 // outbid_notification query_id:uint64
)

// dnsCategories names the record keys wallets and sites use: a key is the
// sha256 of the category name (TEP-81).
var dnsCategories = func() map[string]string {
	out := map[string]string{}
	for _, name := range []string{"wallet", "site", "storage", "dns_next_resolver"} {
		h := sha256.Sum256([]byte(name))
		out[hex.EncodeToString(h[:])] = name
	}
	return out
}()

// ChangeDns: the owner of a DNS item (.ton domain, Telemint username or
// number) set one of its records.
type ChangeDns struct {
	Sender         Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the change (the item's owner)"`
	Nft            Address `json:"nft,omitempty" role:"contract" tc:"asset" doc:"the DNS item"`
	Collection     Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	Key            Text    `json:"key,omitempty" tc:"key" doc:"the record key (sha256 of the category), hex"`
	Category       Text    `json:"category,omitempty" doc:"wallet, site, storage or dns_next_resolver when the key is one of those"`
	ValueSchema    Text    `json:"value_schema,omitempty" tc:"value.sum_type" doc:"DNSSmcAddress, DNSAdnlAddress, DNSStorageAddress, DNSNextResolver, DNSText or Unknown"`
	SmcAddress     Address `json:"smc_address,omitempty" tc:"value.dns_smc_address" doc:"the contract (wallet) the record points to"`
	AdnlAddress    Text    `json:"adnl_address,omitempty" tc:"value.dns_adnl_address" doc:"the ADNL address (site), hex"`
	StorageAddress Text    `json:"storage_address,omitempty" tc:"value.dns_storage_address" doc:"the TON Storage bag id, hex"`
	NextResolver   Address `json:"next_resolver,omitempty" tc:"value.dns_next_resolver_address" doc:"the resolver of subdomains"`
	Text           Text    `json:"text,omitempty" tc:"value.dns_text" doc:"the text record"`
	Flags          *int64  `json:"flags,omitempty" tc:"value.flags" doc:"the record's flags byte (smc and ADNL addresses)"`
	QueryID        BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
	Domain         Text    `json:"domain,omitempty" doc:"the item's domain, when the indexer knows it"`
}

// DeleteDns: the owner of a DNS item removed one of its records.
type DeleteDns struct {
	Sender     Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the change (the item's owner)"`
	Nft        Address `json:"nft,omitempty" role:"contract" tc:"asset" doc:"the DNS item"`
	Collection Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	Key        Text    `json:"key,omitempty" tc:"hash" doc:"the deleted record's key (sha256 of the category), hex"`
	Category   Text    `json:"category,omitempty" doc:"wallet, site, storage or dns_next_resolver when the key is one of those"`
	QueryID    BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
	Domain     Text    `json:"domain,omitempty" doc:"the item's domain, when the indexer knows it"`
}

// RenewDns: the owner of a .ton domain renewed it (a change_dns_record with
// the zero key and no value, which only updates the last fill-up time).
type RenewDns struct {
	Sender     Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who renewed (the item's owner)"`
	Nft        Address `json:"nft,omitempty" role:"contract" tc:"asset" doc:"the DNS item"`
	Collection Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	QueryID    BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
	Domain     Text    `json:"domain,omitempty" doc:"the item's domain, when the indexer knows it"`
}

// DnsPurchase: the winner of a .ton domain auction took the domain; the item
// paid the winning bid to the DNS collection.
type DnsPurchase struct {
	Buyer        Address `json:"buyer,omitempty" role:"recipient" tc:"new_owner" doc:"the auction's winner, now the owner"`
	Nft          Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the DNS item"`
	Collection   Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"the DNS collection, which received the bid"`
	NftIndex     BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item, when known"`
	Price        BigInt  `json:"price,omitempty" tc:"price" doc:"nanotons of the winning bid the item paid to the collection"`
	PayoutAmount BigInt  `json:"payout_amount,omitempty" tc:"payout_amount" doc:"the same nanotons, as toncenter names the payout"`
	QueryID      BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the fill-up"`
	Domain       Text    `json:"domain,omitempty" doc:"the item's domain, when the indexer knows it"`
}

// DnsRelease: someone released a .ton domain nobody renewed for a year,
// starting a new auction with their bid.
type DnsRelease struct {
	Sender        Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who released it (the new auction's first bidder)"`
	Nft           Address `json:"nft,omitempty" role:"contract" tc:"nft_item" doc:"the DNS item"`
	Collection    Address `json:"collection,omitempty" role:"master" tc:"nft_collection" doc:"its collection, when known"`
	NftIndex      BigInt  `json:"nft_index,omitempty" tc:"nft_item_index" doc:"index of the item, when known"`
	Amount        BigInt  `json:"amount,omitempty" tc:"value" doc:"nanotons sent with the release (the first bid)"`
	QueryID       BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	PreviousOwner Address `json:"previous_owner,omitempty" doc:"the owner who lost the domain, paid the item's balance back"`
	Refund        BigInt  `json:"refund,omitempty" doc:"nanotons paid back to the previous owner"`
	Domain        Text    `json:"domain,omitempty" doc:"the item's domain, when the indexer knows it"`
}

func init() {
	declare(
		Type{Value: ChangeDns{}, Title: "DNS record changed", Describe: describeAs(func(v *ChangeDns, w *Words) string {
			return "Set the " + w.dnsRecord(v.Category, v.Key) + " record of " + w.item(v.Domain, v.Nft, v.Collection)
		}),
			Toncenter: "change_dns", Protocols: ".ton DNS items, Telemint items",
			Doc:    "change_dns_record (0x4eb1f0f9) with a value: the record key and the decoded value.",
			Failed: "the item rejected the change"},
		Type{Value: DeleteDns{}, Title: "DNS record deleted", Describe: describeAs(func(v *DeleteDns, w *Words) string {
			return "Deleted the " + w.dnsRecord(v.Category, v.Key) + " record of " + w.item(v.Domain, v.Nft, v.Collection)
		}),
			Toncenter: "delete_dns", Protocols: ".ton DNS items, Telemint items",
			Doc:    "change_dns_record (0x4eb1f0f9) without a value and with a non-zero key.",
			Failed: "the item rejected the change"},
		Type{Value: RenewDns{}, Title: "Domain renewed", Describe: describeAs(func(v *RenewDns, w *Words) string {
			return "Renewed " + w.item(v.Domain, v.Nft, v.Collection)
		}),
			Toncenter: "renew_dns", Protocols: ".ton DNS items",
			Doc:    "change_dns_record (0x4eb1f0f9) without a value and with the zero key.",
			Failed: "the item rejected the request"},
		Type{Value: DnsPurchase{}, Title: "Domain purchase", Describe: describeAs(func(v *DnsPurchase, w *Words) string {
			return "Bought " + w.item(v.Domain, v.Nft, v.Collection) + " for " + w.TON(v.Price)
		}),
			Toncenter: "dns_purchase", Protocols: ".ton DNS items",
			Doc:    "A DNS item whose auction has ended takes its winner's first request and pays the bid to the DNS collection (fill_up 0x370fec51); the fill-up is the purchase when that request is a call (an NFT transfer too; not a plain transfer or a comment), the request its own action.",
			Failed: "the collection's fill-up transaction failed"},
		Type{Value: DnsRelease{}, Title: "Domain released", Describe: describeAs(func(v *DnsRelease, w *Words) string {
			return with("Released "+w.item(v.Domain, v.Nft, v.Collection), if1(v.Amount != "", w.TON(v.Amount)))
		}),
			Toncenter: "dns_release", Protocols: ".ton DNS items",
			Doc:    "dns_balance_release (0x4ed14b65) at the item, sent by someone else than a DNS item; the item's refund to the previous owner stays a call of its own, as toncenter reports it.",
			Failed: "the item rejected the request"},
	)
	addMatcher(OrderToken+45, "ChangeDns", matchChangeDns)
	addMatcher(OrderToken+46, "DnsPurchase", matchDnsPurchase)
	addMatcher(OrderToken+47, "DnsRelease", matchDnsRelease)
}

// domainOf is the domain the indexer knows for a DNS item.
func (c *classifier) domainOf(item string) string {
	if k, ok := c.known[item]; ok {
		return k.Content["domain"]
	}
	return ""
}

// isDnsItem reports an item the indexer knows as a .ton DNS item.
func (c *classifier) isDnsItem(item string) bool {
	k, ok := c.known[item]
	return ok && k.Kind == chain.KindNftItem && (k.Collection == dnsCollection || strings.HasSuffix(k.Content["domain"], ".ton"))
}

// dnsDeployDomain reads the domain from the DNS collection's deploying
// message to a new item: sender_address:MsgAddress then a reference to the
// domain's bytes ("alice" for alice.ton).
func dnsDeployDomain(body []byte) string {
	var v struct {
		Sender tlb.MsgAddress
		Domain tlb.Ref[boc.Cell]
	}
	if !decodePrefix(body, &v) {
		return ""
	}
	c := &v.Domain.Value
	c.ResetCounters()
	n := c.BitSize()
	if n == 0 || n%8 != 0 {
		return ""
	}
	b, err := c.ReadBytes(n / 8)
	if err != nil {
		return ""
	}
	for _, r := range b {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return ""
		}
	}
	return string(b) + ".ton"
}

// dnsChange is a decoded change_dns_record request.
type dnsChange struct {
	queryID  uint64
	key      string // hex
	hasValue bool
	value    *boc.Cell
}

func dnsChangeOf(body []byte) (dnsChange, bool) {
	var v struct {
		Op      uint32
		QueryID uint64
		Key     tlb.Bits256
	}
	var out dnsChange
	if !decodePrefix(body, &v) {
		return out, false
	}
	out.queryID, out.key = v.QueryID, hex.EncodeToString(v.Key[:])
	if root := readBody(body); root != nil && root.RefsSize() > 0 {
		if ref, err := root.NextRef(); err == nil {
			out.hasValue, out.value = true, ref
		}
	}
	return out, true
}

// setDnsValue decodes a DNS record into the ChangeDns value (TEP-81 layouts:
// dns_smc_address#9fd3 smc_addr flags:uint8, dns_adnl_address#ad01
// adnl_addr:bits256 flags:uint8, dns_storage_address#7473 bag_id:bits256,
// dns_next_resolver#ba93 resolver, dns_text#1eda chunks).
func setDnsValue(v *ChangeDns, c *boc.Cell) {
	defer func() {
		if recover() != nil {
			v.ValueSchema = "Unknown"
		}
	}()
	c.ResetCounters()
	schema, err := c.ReadUint(16)
	if err != nil {
		v.ValueSchema = "Unknown"
		return
	}
	switch schema {
	case 0x9fd3:
		var r struct {
			Addr  tlb.MsgAddress
			Flags uint8
		}
		v.ValueSchema = "DNSSmcAddress"
		if tlb.Unmarshal(c, &r) == nil {
			f := int64(r.Flags)
			v.SmcAddress, v.Flags = Address(addr(r.Addr)), &f
		}
	case 0xad01:
		var r struct {
			Addr  tlb.Bits256
			Flags uint8
		}
		v.ValueSchema = "DNSAdnlAddress"
		if tlb.Unmarshal(c, &r) == nil {
			f := int64(r.Flags)
			v.AdnlAddress, v.Flags = Text(hex.EncodeToString(r.Addr[:])), &f
		}
	case 0x7473:
		var r tlb.Bits256
		v.ValueSchema = "DNSStorageAddress"
		if tlb.Unmarshal(c, &r) == nil {
			v.StorageAddress = Text(hex.EncodeToString(r[:]))
		}
	case 0xba93:
		var r tlb.MsgAddress
		v.ValueSchema = "DNSNextResolver"
		if tlb.Unmarshal(c, &r) == nil {
			v.NextResolver = Address(addr(r))
		}
	case 0x1eda:
		v.ValueSchema = "DNSText"
		v.Text = Text(readDnsText(c))
	default:
		v.ValueSchema = "Unknown"
	}
}

// readDnsText reads text$_ chunks:(## 8) then, per chunk, len:(## 8)
// data:(bits len*8) and a reference to the next chunk.
func readDnsText(c *boc.Cell) string {
	chunks, err := c.ReadUint(8)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for i := uint64(0); i < chunks; i++ {
		n, err := c.ReadUint(8)
		if err != nil {
			break
		}
		data, err := c.ReadBytes(int(n))
		if err != nil {
			break
		}
		b.Write(data)
		if i+1 < chunks {
			if c, err = c.NextRef(); err != nil {
				break
			}
		}
	}
	return b.String()
}

// matchChangeDns: change_dns_record at a DNS item: a ChangeDns with a
// value, a RenewDns for the zero key without one, else a DeleteDns.
func matchChangeDns(c *classifier, n *node) bool {
	if !n.is(opChangeDnsRecord) {
		return false
	}
	ch, ok := dnsChangeOf(n.in().Body)
	if !ok {
		return false
	}
	sender, item := Address(n.in().Source), Address(n.tx.Account)
	collection, _ := c.itemFacts(n.tx.Account)
	domain := c.domainOf(n.tx.Account)
	var value any
	switch {
	case ch.hasValue:
		v := &ChangeDns{Sender: sender, Nft: item, Collection: collection, Key: Text(ch.key), Category: Text(dnsCategories[ch.key]),
			QueryID: nano(ch.queryID), Domain: Text(domain)}
		setDnsValue(v, ch.value)
		value = v
	case strings.Trim(ch.key, "0") == "":
		value = &RenewDns{Sender: sender, Nft: item, Collection: collection, QueryID: nano(ch.queryID), Domain: Text(domain)}
	default:
		value = &DeleteDns{Sender: sender, Nft: item, Collection: collection, Key: Text(ch.key), Category: Text(dnsCategories[ch.key]),
			QueryID: nano(ch.queryID), Domain: Text(domain)}
	}
	d := newDraft(value, n.in().Hash, n, n.bouncedChild(), n.child(abi.ExcessMsgOpCode)).withInitiator(n)
	d.ok = n.ok()
	c.add(d)
	return true
}

// matchDnsPurchase: a .ton DNS item pays the winning bid to the DNS
// collection (fill_up) when its ended auction's winner sends a request. As
// toncenter, only a request that is a call (any op code but a comment's,
// an NFT transfer included) makes it a purchase; after a plain transfer the
// fill-up stays a call.
func matchDnsPurchase(c *classifier, f *node) bool {
	if !f.is(opAuctionFillUp) || f.parent == nil {
		return false
	}
	item := f.in().Source
	if f.tx.Account != dnsCollection && !c.isDnsItem(item) {
		return false
	}
	p := f.parent
	if p.in() == nil || p.in().Bounced || p.in().IsExternalIn() || !p.hasOp {
		return false
	}
	if ton, _ := tonTransferOf(p); ton {
		return false
	}
	var body struct {
		Op      uint32
		QueryID uint64
	}
	f.decode(&body)
	v := &DnsPurchase{Buyer: Address(p.in().Source), Nft: Address(item), Price: nano(f.in().Value),
		PayoutAmount: nano(f.in().Value), QueryID: nano(body.QueryID), Domain: Text(c.domainOf(item))}
	v.Collection, v.NftIndex = c.itemFacts(item)
	if v.Collection == "" {
		v.Collection = Address(f.tx.Account)
	}
	d := newDraft(v, f.in().Hash, f)
	d.ok = f.ok()
	c.add(d)
	return true
}

// matchDnsRelease: dns_balance_release at a .ton DNS item (not the item's
// own refund to the previous owner, which carries the same op code).
func matchDnsRelease(c *classifier, n *node) bool {
	if !n.is(opDnsBalanceRelease) {
		return false
	}
	if p := n.parent; p != nil && p.is(opDnsBalanceRelease) && p.tx.Account == n.in().Source {
		return false
	}
	if k, ok := c.known[n.tx.Account]; ok && k.Kind != "" && !c.isDnsItem(n.tx.Account) {
		return false
	}
	var body struct {
		Op      uint32
		QueryID uint64
	}
	n.decode(&body)
	v := &DnsRelease{Sender: Address(n.in().Source), Nft: Address(n.tx.Account), Amount: nano(n.in().Value),
		QueryID: nano(body.QueryID), Domain: Text(c.domainOf(n.tx.Account))}
	v.Collection, v.NftIndex = c.itemFacts(n.tx.Account)
	for _, ch := range n.children {
		if ch.is(opDnsBalanceRelease) {
			v.PreviousOwner, v.Refund = Address(ch.tx.Account), nano(ch.in().Value)
			break
		}
	}
	d := newDraft(v, n.in().Hash, n, n.bouncedChild()).withInitiator(n)
	d.ok = n.ok()
	c.add(d)
	return true
}

// DNSNames lists what the actions reveal about .ton names: a wallet record
// set to a contract on an item whose domain is known names that contract
// by the domain (the address book's domain). Failed changes reveal nothing.
func DNSNames(list []chain.Action) []chain.DNSName {
	var out []chain.DNSName
	for i := range list {
		a := &list[i]
		if a.Type != "ChangeDns" || a.Status != chain.StatusOK {
			continue
		}
		var v ChangeDns
		if json.Unmarshal(a.Value, &v) != nil {
			continue
		}
		if v.Category == "wallet" && v.Domain != "" && v.SmcAddress != "" {
			out = append(out, chain.DNSName{Domain: string(v.Domain), Address: string(v.SmcAddress)})
		}
	}
	return out
}
