package contractfixture

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/contract/dns"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// TON DNS (.ton) as tonweb ships it: the collection and item codes of
// its DNS test script (src/test-dns.js), the collection's data and the
// item's messages as its DnsCollection, DnsItem and DnsUtils build them.

const dnsScript = "tonweb/src/test-dns.js"

// DNSItemCode is the DNS item's code.
func DNSItemCode(t testing.TB) *boc.Cell {
	t.Helper()
	return Code(t, dnsScript, "dnsItemCodeHex")
}

// DNSCollection deploys tonweb's DNS collection (the .ton root's code),
// with the item code and an off-chain content cell, from deployer.
func (c *Chain) DNSCollection(deployer ton.AccountID) ton.AccountID {
	c.t.Helper()
	code := CodeAt(c.t, dnsScript, `dnsItemCodeHex: dnsItemCodeHex,\s*code: Cell\.oneFromBoc\('([0-9A-Fa-f]+)'`)
	content := boc.NewCell()
	require.NoError(c.t, content.WriteUint(1, 8)) // off-chain content (TEP-64)
	require.NoError(c.t, content.WriteBytes([]byte("https://dns.ton.org/collection.json")))
	data := boc.NewCell()
	require.NoError(c.t, data.AddRef(content))
	require.NoError(c.t, data.AddRef(DNSItemCode(c.t)))
	body := boc.NewCell()
	require.NoError(c.t, body.WriteUint(0x370fec51, 32)) // the collection's deploy op
	require.NoError(c.t, body.WriteUint(0, 64))
	return c.Deploy(deployer, code, data, body, ton1/2)
}

// BuyDomain opens the auction of domain (without ".ton") at the
// collection with buyer's bid (a comment naming the domain, as the DNS
// site sends it), delivers the item's deployment the collection sends,
// then lets the auction end and completes it: buyer owns the item.
func (c *Chain) BuyDomain(collection, buyer ton.AccountID, domain string) ton.AccountID {
	c.t.Helper()
	body := boc.NewCell()
	require.NoError(c.t, body.WriteUint(0, 32))
	require.NoError(c.t, body.WriteBytes([]byte(domain)))
	out := c.Send(buyer, collection, body, 1000*ton1)
	require.Len(c.t, out, 1, "the collection deploys the item")
	item, err := ton.AccountIDFromTlb(out[0].Info.IntMsgInfo.Dest)
	require.NoError(c.t, err)
	c.Deliver(out[0])
	c.Wait(30 * 24 * 3600) // past the auction's end (a week or two), before the domain expires (a year)
	// The item completes an ended auction on the next message: the best
	// bid owns it (a request for its static data is any message).
	ask := boc.NewCell()
	require.NoError(c.t, ask.WriteUint(0x2fcb26a2, 32))
	require.NoError(c.t, ask.WriteUint(0, 64))
	c.Send(buyer, *item, ask, ton1/10)
	return *item
}

// SetDNSRecord sends change_dns_record (tonweb's
// DnsItem.createChangeContentEntryBody) from the item's owner: value nil
// deletes the category's record.
func (c *Chain) SetDNSRecord(item, owner ton.AccountID, category string, value *tlb.DNSRecord) {
	c.t.Helper()
	body := boc.NewCell()
	require.NoError(c.t, body.WriteUint(0x4eb1f0f9, 32))
	require.NoError(c.t, body.WriteUint(0, 64))
	key := sha256.Sum256([]byte(category))
	require.NoError(c.t, body.WriteBytes(key[:]))
	if value != nil {
		v := boc.NewCell()
		require.NoError(c.t, tlb.Marshal(v, *value))
		require.NoError(c.t, body.AddRef(v))
	}
	c.Send(owner, item, body, ton1/10)
}

// WalletRecord, NextResolverRecord, SiteRecord and StorageRecord are the
// records tonweb's DnsUtils creates.
func WalletRecord(a ton.AccountID) *tlb.DNSRecord {
	r := tlb.DNSRecord{SumType: "DNSSmcAddress"}
	r.DNSSmcAddress.Address = a.ToMsgAddress()
	return &r
}

func NextResolverRecord(a ton.AccountID) *tlb.DNSRecord {
	return &tlb.DNSRecord{SumType: "DNSNextResolver", DNSNextResolver: a.ToMsgAddress()}
}

func SiteRecord(adnl [32]byte) *tlb.DNSRecord {
	r := tlb.DNSRecord{SumType: "DNSAdnlAddress"}
	r.DNSAdnlAddress.Address = adnl
	return &r
}

func StorageRecord(bag [32]byte) *tlb.DNSRecord {
	return &tlb.DNSRecord{SumType: "DNSStorageAddress", DNSStorageAddress: bag}
}

// DNSReading is what tongo's own TVM and ABI read from a DNS item's
// state (get_nft_data, get_domain, dnsresolve of "."), in the forms
// toncenter answers them: raw addresses, base64 of 32-byte values, ""
// for none. Tests compare the project's reading with it.
type DNSReading struct {
	Owner, Domain, NextResolver, Wallet, SiteADNL, StorageBagID string
}

// ReadDNS reads item as tongo does.
func (c *Chain) ReadDNS(item ton.AccountID) DNSReading {
	c.t.Helper()
	ctx := Context()
	_, v, err := abi.GetNftData(ctx, c.Executor(item), item)
	require.NoError(c.t, err)
	nft := v.(abi.GetNftDataResult)
	_, v, err = abi.GetDomain(ctx, c.Executor(item), item)
	require.NoError(c.t, err)
	out := DNSReading{Owner: rawOrEmpty(c.t, nft.OwnerAddress), Domain: v.(abi.GetDomainResult).Domain + ".ton"}
	_, v, err = abi.Dnsresolve(ctx, c.Executor(item), item, []byte{0}, tlb.Int257FromInt64(0))
	if err != nil {
		return out // no record set (dnsresolve answers null)
	}
	set := v.(abi.Dnsresolve_RecordsResult)
	require.EqualValues(c.t, 8, set.ResolvedBits)
	for _, kv := range set.Result.Records.Items() {
		r := kv.Value.Value
		switch dns.DNSCategory(hex.EncodeToString(kv.Key[:])) {
		case dns.DNSCategoryWallet:
			out.Wallet = rawOrEmpty(c.t, r.DNSSmcAddress.Address)
		case dns.DNSCategoryDNSNextResolver:
			out.NextResolver = rawOrEmpty(c.t, r.DNSNextResolver)
		case dns.DNSCategorySite:
			out.SiteADNL = base64.StdEncoding.EncodeToString(r.DNSAdnlAddress.Address[:])
		case dns.DNSCategoryStorage:
			out.StorageBagID = base64.StdEncoding.EncodeToString(r.DNSStorageAddress[:])
		}
	}
	return out
}

func rawOrEmpty(t testing.TB, a tlb.MsgAddress) string {
	t.Helper()
	id, err := ton.AccountIDFromTlb(a)
	require.NoError(t, err)
	if id == nil {
		return ""
	}
	return chain.RawAddress(*id)
}
