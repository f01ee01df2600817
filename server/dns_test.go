package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// dnsRecordFields are toncenter's DNSRecord (ton-index-go
// index/models/dns.go), every field always present.
var dnsRecordFields = []string{"nft_item_address", "nft_item_owner", "domain", "dns_next_resolver", "dns_wallet",
	"dns_site_adnl", "dns_storage_bag_id"}

// dnsWant is a record as toncenter renders what tongo reads from item.
func dnsWant(c *contractfixture.Chain, item ton.AccountID) map[string]any {
	r := c.ReadDNS(item)
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return map[string]any{"nft_item_address": rawOf(item), "nft_item_owner": opt(r.Owner), "domain": r.Domain,
		"dns_next_resolver": opt(r.NextResolver), "dns_wallet": opt(r.Wallet), "dns_site_adnl": opt(r.SiteADNL),
		"dns_storage_bag_id": opt(r.StorageBagID)}
}

// TestDNSRoutes: /api/v3/dns/records (and below /toncenter) on SQLite and
// Postgres, over real states: tonweb's TON DNS collection (testnet's .ton
// root) and items bought through its auction, given records by
// change_dns_record through the emulator, stored as an import stores
// states (the contracts registry's hook). Each record is checked field by
// field against what tongo's own TVM and ABI read from the same state.
func TestDNSRoutes(t *testing.T) {
	c := contractfixture.New(t)
	root := c.DNSCollection(contractfixture.Wallet(1))
	alice, carol, dave, w := contractfixture.Wallet(2), contractfixture.Wallet(3), contractfixture.Wallet(4), contractfixture.Wallet(5)
	aliceItem := c.BuyDomain(root, alice, "alice-test")
	c.SetDNSRecord(aliceItem, alice, "wallet", contractfixture.WalletRecord(w))
	c.SetDNSRecord(aliceItem, alice, "dns_next_resolver", contractfixture.NextResolverRecord(contractfixture.Wallet(6)))
	c.SetDNSRecord(aliceItem, alice, "site", contractfixture.SiteRecord([32]byte{1, 2, 3}))
	c.SetDNSRecord(aliceItem, alice, "storage", contractfixture.StorageRecord([32]byte{4, 5, 6}))
	carolItem := c.BuyDomain(root, carol, "carol-tst")
	c.SetDNSRecord(carolItem, carol, "wallet", contractfixture.WalletRecord(w))
	daveItem := c.BuyDomain(root, dave, "dave-test")
	states := []chain.AccountState{c.State(root), c.State(aliceItem), c.State(carolItem), c.State(daveItem)}
	wantAlice, wantCarol, wantDave := dnsWant(c, aliceItem), dnsWant(c, carolItem), dnsWant(c, daveItem)
	require.Equal(t, rawOf(w), wantAlice["dns_wallet"])
	require.Equal(t, "carol-tst.ton", wantCarol["domain"])
	require.Nil(t, wantDave["dns_wallet"])
	// Later the wallet record of alice-test.ton is deleted.
	c.SetDNSRecord(aliceItem, alice, "wallet", nil)
	aliceLater := c.State(aliceItem)
	wantAliceLater := dnsWant(c, aliceItem)
	require.Nil(t, wantAliceLater["dns_wallet"])

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			con := contracts.ForStore(st, nil).WithDNSRoots(contracts.DNSRoots(true))
			require.NoError(t, con.Hook(ctx, states, touched(states...)))
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			records := func(q string) []map[string]any {
				t.Helper()
				return listOf(t, h, "/api/v3/dns/records?"+q, "records")
			}

			// domain: the exact name.
			require.Equal(t, []map[string]any{wantAlice}, records("domain=alice-test.ton"))
			require.Equal(t, []map[string]any{wantDave}, records("domain=dave-test.ton"), "no records: nulls")
			require.Empty(t, records("domain=alice-test"), "the full name only")
			require.Empty(t, records("domain=ALICE-TEST.TON"), "exact, as toncenter")

			// wallet, any form: shortest domain first, then by name;
			// limit and offset page it.
			both := []map[string]any{wantCarol, wantAlice}
			require.Equal(t, both, records("wallet="+friendly(rawOf(w))))
			require.Equal(t, both, records("wallet="+rawOf(w)+"&limit=1000&offset=0"))
			require.Equal(t, both[:1], records("wallet="+rawOf(w)+"&limit=1"))
			require.Equal(t, both[1:], records("wallet="+rawOf(w)+"&limit=1&offset=1"))
			require.Empty(t, records("wallet="+rawOf(w)+"&offset=2"))
			require.Equal(t, both[:1], records("domain=carol-tst.ton&limit=5&offset=0"))
			require.Empty(t, records("domain=carol-tst.ton&offset=1"))
			require.Empty(t, records("wallet="+rawOf(alice)), "the owner is no wallet record")

			// Shape: toncenter's fields, records never null, the book
			// names the items, owners and wallets; the same below
			// /toncenter.
			code, body := getJSON(t, h, "/api/v3/dns/records?wallet="+rawOf(w))
			require.Equal(t, http.StatusOK, code)
			require.ElementsMatch(t, []string{"records", "address_book"}, keysOf(body))
			for _, r := range body["records"].([]any) {
				require.ElementsMatch(t, dnsRecordFields, keysOf(r.(map[string]any)))
			}
			book := body["address_book"].(map[string]any)
			for _, a := range []ton.AccountID{aliceItem, carolItem, alice, carol, w} {
				require.Contains(t, book, rawOf(a))
			}
			require.Len(t, book, 5)
			_, tc := getJSON(t, h, "/toncenter/api/v3/dns/records?wallet="+rawOf(w))
			require.Equal(t, body, tc)
			_, empty := getJSON(t, h, "/api/v3/dns/records?domain=nobody.ton")
			require.Equal(t, map[string]any{"records": []any{}, "address_book": map[string]any{}}, empty)

			// GraphQL reads the same: Query.dnsRecord (REST's domain=) and
			// Account.dnsRecords (REST's wallet=), paged the same.
			const fields = `{ nft_item_address nft_item_owner domain dns_next_resolver dns_wallet dns_site_adnl dns_storage_bag_id }`
			for _, name := range []string{"alice-test.ton", "dave-test.ton"} {
				got := gqlData(t, h, fmt.Sprintf(`{ dnsRecord(domain: %q) %s }`, name, fields))["dnsRecord"]
				require.Equal(t, any(records("domain=" + name)[0]), got, name)
			}
			require.Nil(t, gqlData(t, h, `{ dnsRecord(domain: "nobody.ton") `+fields+` }`)["dnsRecord"])
			for q, args := range map[string]string{"": "", "&limit=1": "(limit: 1)", "&limit=1&offset=1": "(limit: 1, offset: 1)",
				"&offset=2": "(offset: 2)"} {
				data := gqlData(t, h, fmt.Sprintf(`{ account(address: %q) { dnsRecords%s %s } }`, friendly(rawOf(w)), args, fields))
				got := data["account"].(map[string]any)["dnsRecords"].([]any)
				want := records("wallet=" + rawOf(w) + q)
				require.Len(t, got, len(want), q)
				for i := range want {
					require.Equal(t, any(want[i]), got[i], q)
				}
			}
			for query, name := range map[string]string{
				fmt.Sprintf(`{ account(address: %q) { dnsRecords(limit: 0) %s } }`, rawOf(w), fields):   "limit",
				fmt.Sprintf(`{ account(address: %q) { dnsRecords(offset: -1) %s } }`, rawOf(w), fields): "offset",
				`{ dnsRecord(domain: "") ` + fields + ` }`:                                              "domain",
			} {
				_, a, raw := postGQL(t, h, query, nil)
				require.NotEmpty(t, a.Errors, raw)
				require.Contains(t, a.Errors[0].Message, name, raw)
			}

			// Bad input: 422 naming the parameter.
			for q, name := range map[string]string{
				"": "wallet",
				"domain=alice-test.ton&wallet=" + rawOf(w): "domain",
				"wallet=nope": "wallet",
				"wallet=" + rawOf(w) + "&wallet=" + rawOf(alice): "wallet",
				"domain=a.ton&domain=b.ton":                      "domain",
				"domain=" + strings.Repeat("a", 300) + ".ton":    "domain",
				"wallet=" + rawOf(w) + "&limit=0":                "limit",
				"wallet=" + rawOf(w) + "&limit=1001":             "limit",
				"wallet=" + rawOf(w) + "&limit=x":                "limit",
				"wallet=" + rawOf(w) + "&offset=-1":              "offset",
				"wallet=" + rawOf(w) + "&sort=asc":               "sort",
				"wallet_address=" + rawOf(w):                     "wallet_address",
				"domain=alice-test.ton&include_address_book=1":   "include_address_book",
			} {
				code, body := getJSON(t, h, "/api/v3/dns/records?"+q)
				require.Equal(t, http.StatusUnprocessableEntity, code, "%s: %v", q, body)
				require.Contains(t, fmt.Sprint(body), name, q)
			}

			// A newer state (the root's with it: the test stores no
			// account states for the registry to find it by): the
			// deleted wallet record is gone from both lookups.
			require.NoError(t, con.Hook(ctx, []chain.AccountState{states[0], aliceLater}, touched(aliceLater)))
			require.Equal(t, []map[string]any{wantAliceLater}, records("domain=alice-test.ton"))
			require.Equal(t, []map[string]any{wantCarol}, records("wallet="+rawOf(w)))

			// A newer transaction than any state read: the item's owner
			// and records are unknown, so it is not answered; an older
			// state never replaces the mark.
			require.NoError(t, con.Hook(ctx, nil, map[string]uint64{rawOf(carolItem): states[2].LastTxLt + 1000}))
			require.Empty(t, records("wallet="+rawOf(w)))
			require.Empty(t, records("domain=carol-tst.ton"))
			require.NoError(t, con.Hook(ctx, []chain.AccountState{states[2]}, nil))
			require.Empty(t, records("domain=carol-tst.ton"))
		})
	}
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
