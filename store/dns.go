package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// The DNS table (migration 20261201000210): TON DNS items with their
// records as package contracts reads them from their states.

type dnsRecordRow struct {
	bun.BaseModel `bun:"table:dns_records,alias:dns_records"`

	Address      string  `bun:"address,pk"`
	Owner        *string `bun:"owner"`
	Domain       string  `bun:"domain,notnull"`
	NextResolver *string `bun:"next_resolver"`
	Wallet       *string `bun:"wallet"`
	SiteADNL     *string `bun:"site_adnl"`
	StorageBagID *string `bun:"storage_bag_id"`
	Known        bool    `bun:"known,notnull"`
	LastTxLt     int64   `bun:"last_tx_lt,notnull"`
}

func (r *dnsRecordRow) toChain() chain.DNSEntry {
	return chain.DNSEntry{Address: r.Address, Owner: textOr(r.Owner), Domain: r.Domain, NextResolver: textOr(r.NextResolver),
		Wallet: textOr(r.Wallet), SiteADNL: textOr(r.SiteADNL), StorageBagID: textOr(r.StorageBagID), Known: r.Known,
		LastTxLt: uint64(r.LastTxLt)}
}

func dnsRows(in []chain.DNSEntry) []dnsRecordRow {
	rows := make([]dnsRecordRow, 0, len(in))
	for _, e := range in {
		rows = append(rows, dnsRecordRow{Address: e.Address, Owner: optText(e.Owner), Domain: e.Domain,
			NextResolver: optText(e.NextResolver), Wallet: optText(e.Wallet), SiteADNL: optText(e.SiteADNL),
			StorageBagID: optText(e.StorageBagID), Known: e.Known, LastTxLt: int64(e.LastTxLt)})
	}
	return dedupe(rows, func(r *dnsRecordRow) string { return r.Address }, func(a, b *dnsRecordRow) bool { return a.LastTxLt >= b.LastTxLt })
}

// saveDNS writes DNS rows, each replacing the stored row of its item
// unless that one was read at a later transaction.
func saveDNS(ctx context.Context, tx bun.Tx, in []chain.DNSEntry) error {
	rows := dnsRows(in)
	if len(rows) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
		Set("owner = EXCLUDED.owner, domain = EXCLUDED.domain, next_resolver = EXCLUDED.next_resolver").
		Set("wallet = EXCLUDED.wallet, site_adnl = EXCLUDED.site_adnl, storage_bag_id = EXCLUDED.storage_bag_id").
		Set("known = EXCLUDED.known, last_tx_lt = EXCLUDED.last_tx_lt").
		Where(newerThan("dns_records")).Exec(ctx)
	return err
}

// dnsBehind is what a DNS item's newer transaction makes unknown: its
// owner and records (MarkContractsBehind).
var dnsBehind = behindSet{"dns_records",
	"known = FALSE, owner = NULL, next_resolver = NULL, wallet = NULL, site_adnl = NULL, storage_bag_id = NULL"}

// DNSFilter selects DNS records (toncenter's /api/v3/dns/records): by the
// wallet record (raw address) or by the exact domain.
type DNSFilter struct {
	Wallet, Domain string
	TokenPage
}

// DNSRecords lists the known DNS items matching f, shortest domain first
// then by domain (toncenter's order) and item.
func (s *Store) DNSRecords(ctx context.Context, f DNSFilter) ([]chain.DNSEntry, error) {
	return readTokens[dnsRecordRow, *dnsRecordRow](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.Where("known")
		if f.Wallet != "" {
			q = q.Where("wallet = ?", f.Wallet)
		}
		if f.Domain != "" {
			q = q.Where("domain = ?", f.Domain)
		}
		return f.apply(q.OrderExpr("LENGTH(domain), domain, address"))
	})
}
