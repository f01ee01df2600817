package toncenter

import "github.com/tonql/tonql/chain"

// DNSRecord is toncenter's DNSRecord (/api/v3/dns/records): a TON DNS
// item with the records of its record set. GraphQL's DNSRecord reads the
// same struct.
type DNSRecord struct {
	NftItemAddress string  `json:"nft_item_address"`
	NftItemOwner   *string `json:"nft_item_owner"`
	Domain         string  `json:"domain"`
	NextResolver   *string `json:"dns_next_resolver"`
	Wallet         *string `json:"dns_wallet"`
	SiteADNL       *string `json:"dns_site_adnl"`
	StorageBagID   *string `json:"dns_storage_bag_id"`
}

// DNSRecordsOf renders DNS items (never nil: an empty answer is []).
func DNSRecordsOf(in []chain.DNSEntry) []DNSRecord {
	out := make([]DNSRecord, len(in))
	for i, e := range in {
		out[i] = DNSRecord{NftItemAddress: e.Address, NftItemOwner: orNull(e.Owner), Domain: e.Domain,
			NextResolver: orNull(e.NextResolver), Wallet: orNull(e.Wallet), SiteADNL: orNull(e.SiteADNL),
			StorageBagID: orNull(e.StorageBagID)}
	}
	return out
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
