package contracts_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/internal/contractfixture"
)

// dnsOf is an entry as tongo reads it (contractfixture.ReadDNS).
func dnsOf(r contractfixture.DNSReading) chain.DNSEntry {
	return chain.DNSEntry{Owner: r.Owner, Domain: r.Domain, NextResolver: r.NextResolver, Wallet: r.Wallet,
		SiteADNL: r.SiteADNL, StorageBagID: r.StorageBagID}
}

// withoutKeys drops what tongo's reading has no part in.
func withoutKeys(e chain.DNSEntry) chain.DNSEntry {
	e.Address, e.LastTxLt, e.Known = "", 0, false
	return e
}

// TestReadDNS: tonweb's TON DNS collection (testnet's .ton root, the same
// code and data) and an item bought through its auction, given each kind
// of record by change_dns_record through the emulator, are read as
// tongo's own TVM and ABI read the same states; items of another
// collection are no DNS items, and an item whose root's state is not at
// hand is unreadable, never guessed.
func TestReadDNS(t *testing.T) {
	c := contractfixture.New(t)
	root := c.DNSCollection(contractfixture.Wallet(1))
	require.Contains(t, contracts.DNSRoots(true), raw(root), "tonweb's DNS collection is testnet's .ton root")
	buyer, w := contractfixture.Wallet(2), contractfixture.Wallet(3)
	item := c.BuyDomain(root, buyer, "alice-test")
	bare := c.State(item)
	c.SetDNSRecord(item, buyer, "wallet", contractfixture.WalletRecord(w))
	c.SetDNSRecord(item, buyer, "dns_next_resolver", contractfixture.NextResolverRecord(contractfixture.Wallet(4)))
	c.SetDNSRecord(item, buyer, "site", contractfixture.SiteRecord([32]byte{0xAD, 0x01, 7}))
	c.SetDNSRecord(item, buyer, "storage", contractfixture.StorageRecord([32]byte{0x74, 0x73, 9}))
	full := c.State(item)
	want := dnsOf(c.ReadDNS(item))
	require.Equal(t, "alice-test.ton", want.Domain)
	require.Equal(t, raw(buyer), want.Owner)
	require.Equal(t, raw(w), want.Wallet)
	require.NotEmpty(t, want.NextResolver)
	require.NotEmpty(t, want.SiteADNL)
	require.NotEmpty(t, want.StorageBagID)

	// A record deleted (change_dns_record without a value) is gone.
	c.SetDNSRecord(item, buyer, "site", nil)
	noSite := c.State(item)
	wantNoSite := dnsOf(c.ReadDNS(item))
	require.Empty(t, wantNoSite.SiteADNL)

	run, src := runnerOn(t)
	rd := contracts.NewReader(run).WithDNSRoots(contracts.DNSRoots(true))
	ctx := context.Background()
	rootState := c.State(root)

	recs, bad, err := rd.Read(ctx, []chain.AccountState{rootState, full})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Len(t, recs.DNS, 1, "the root is no item")
	got := recs.DNS[0]
	require.Equal(t, raw(item), got.Address)
	require.Equal(t, full.LastTxLt, got.LastTxLt)
	require.True(t, got.Known)
	require.Equal(t, want, withoutKeys(got))
	require.Empty(t, recs.Sales)
	require.Empty(t, recs.Vestings)

	// The root's stored state serves when the batch has none; without
	// either the item is unreadable.
	_, bad, err = rd.Read(ctx, []chain.AccountState{noSite})
	require.NoError(t, err)
	require.Contains(t, bad, raw(item))
	src.Put(&rootState)
	recs, bad, err = rd.Read(ctx, []chain.AccountState{noSite})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Len(t, recs.DNS, 1)
	require.Equal(t, wantNoSite, withoutKeys(recs.DNS[0]))

	// Before any record: the name and owner, no records.
	recs, _, err = rd.Read(ctx, []chain.AccountState{bare})
	require.NoError(t, err)
	require.Len(t, recs.DNS, 1)
	require.Equal(t, chain.DNSEntry{Owner: raw(buyer), Domain: "alice-test.ton"}, withoutKeys(recs.DNS[0]))

	// Mainnet's roots: this collection is not one of them.
	recs, bad, err = contracts.NewReader(run).Read(ctx, []chain.AccountState{rootState, full})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Empty(t, recs.DNS)
}

// TestFullDomainName: t.me items' get_full_domain labels, top first, as a
// name.
func TestFullDomainName(t *testing.T) {
	for in, want := range map[string]string{"me\x00t\x00alice\x00": "alice.t.me", "me\x00t\x00": "t.me",
		"me\x00\x00alice\x00": "", "": ""} {
		require.Equal(t, want, contracts.FullDomainName(in), "%q", in)
	}
}
