package rest

import (
	"net/http"
	"net/url"

	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// TON DNS records in toncenter v3's shape (DNSRecordsResponse: records of
// toncenter.DNSRecord and address_book); package contracts reads them
// from the items' states. Differences are in docs/API-NOTES.md.

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
			return toncenter.DNSRecordsOf(list), book, nil, nil
		})
}
