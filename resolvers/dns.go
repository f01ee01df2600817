package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
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

// AccountDNSRecords are the DNS items whose wallet record is account
// (GraphQL's Account.dnsRecords; REST's ?wallet=).
func (r *Resolver) AccountDNSRecords(ctx context.Context, account string, limit, offset *int) ([]*toncenter.DNSRecord, error) {
	list, err := r.DNSRecords(ctx, DNSArgs{Wallet: account, TokenListArgs: TokenListArgs{Limit: limit, Offset: offset}})
	if err != nil {
		return nil, err
	}
	recs := toncenter.DNSRecordsOf(list)
	out := make([]*toncenter.DNSRecord, len(recs))
	for i := range recs {
		out[i] = &recs[i]
	}
	return out, nil
}

// DNSRecordOf is the DNS item named domain, nil when none is known
// (GraphQL's Query.dnsRecord; REST's ?domain=).
func (r *Resolver) DNSRecordOf(ctx context.Context, domain string) (*toncenter.DNSRecord, error) {
	if domain == "" {
		return nil, apperr.Field("domain", "required")
	}
	list, err := r.DNSRecords(ctx, DNSArgs{Domain: domain})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &toncenter.DNSRecordsOf(list[:1])[0], nil
}
