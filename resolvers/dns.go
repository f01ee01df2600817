package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// MaxDomainLength bounds /api/v3/dns/records' domain: a TON DNS name is at
// most 126 bytes a label (TEP-81), a few labels deep.
const MaxDomainLength = 255

// DNSArgs filter /api/v3/dns/records: exactly one of Wallet (an address
// in any form) and Domain (toncenter's rule).
type DNSArgs struct {
	Wallet, Domain string
	TokenListArgs
}

// DNSRecords lists the DNS items whose wallet record is a.Wallet or whose
// name is a.Domain.
func (r *Resolver) DNSRecords(ctx context.Context, a DNSArgs) ([]chain.DNSEntry, error) {
	switch {
	case a.Wallet == "" && a.Domain == "":
		return nil, apperr.Field("wallet", "either wallet or domain is required")
	case a.Wallet != "" && a.Domain != "":
		return nil, apperr.Field("domain", "give either wallet or domain, not both")
	case len(a.Domain) > MaxDomainLength:
		return nil, apperr.Field("domain", "%d bytes; at most %d", len(a.Domain), MaxDomainLength)
	}
	f := store.DNSFilter{Domain: a.Domain}
	var wallet []string
	if a.Wallet != "" {
		wallet = []string{a.Wallet}
	}
	if err := a.filter(&f.TokenPage, addressList{"wallet", wallet, &wallet}); err != nil {
		return nil, err
	}
	if len(wallet) == 1 {
		f.Wallet = wallet[0]
	}
	return r.Store.DNSRecords(ctx, f)
}
