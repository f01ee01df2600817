package rest

import (
	"net/http"
	"net/url"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
)

// TON DNS records in toncenter v3's shape (DNSRecordsResponse: records
// and address_book); package contracts reads them from the items'
// states. Differences are in docs/API-NOTES.md.

type tcDNSRecord struct {
	NftItemAddress string  `json:"nft_item_address"`
	NftItemOwner   *string `json:"nft_item_owner"`
	Domain         string  `json:"domain"`
	NextResolver   *string `json:"dns_next_resolver"`
	Wallet         *string `json:"dns_wallet"`
	SiteADNL       *string `json:"dns_site_adnl"`
	StorageBagID   *string `json:"dns_storage_bag_id"`
}

// DNSRecordsOf renders DNS items in toncenter's shape (never null: an
// empty answer is []).
func DNSRecordsOf(in []chain.DNSEntry) []tcDNSRecord {
	out := make([]tcDNSRecord, len(in))
	for i, e := range in {
		out[i] = tcDNSRecord{NftItemAddress: e.Address, NftItemOwner: optional(e.Owner), Domain: e.Domain,
			NextResolver: optional(e.NextResolver), Wallet: optional(e.Wallet), SiteADNL: optional(e.SiteADNL),
			StorageBagID: optional(e.StorageBagID)}
	}
	return out
}

// DNSRecordsRoute serves GET /api/v3/dns/records.
func DNSRecordsRoute(res *resolvers.Resolver) http.HandlerFunc {
	return listRoute(res, "records", map[string]bool{"wallet": true, "domain": true, "limit": true, "offset": true}, false,
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			var a resolvers.DNSArgs
			for name, to := range map[string]*string{"wallet": &a.Wallet, "domain": &a.Domain} {
				v, err := single(q, name)
				if err != nil {
					return nil, nil, nil, err
				}
				if v != nil {
					*to = *v
				}
			}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			list, err := res.DNSRecords(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			// toncenter's book: the items, their owners and wallets.
			var book []string
			for _, e := range list {
				book = append(book, e.Address, e.Owner, e.Wallet)
			}
			return DNSRecordsOf(list), book, nil, nil
		})
}
