package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerDNSRecords must stay in this file: bun names a Go migration
// after the file that registers it.
func registerDNSRecords(m *migrate.Migrations) {
	m.MustRegister(dnsRecordsUp, dnsRecordsDown)
}

// TON DNS items with their records (package contracts;
// /api/v3/dns/records): one row per item of a DNS root collection, its
// owner, full domain and the wallet, next resolver, site and storage
// records of its record set. As in the other contract tables a row is
// what the get methods answered on the item's state at last_tx_lt, only
// replaced by one read at a later transaction; known is false (owner and
// records null) when the item had a transaction after the newest state
// read. Millions of names at most, looked up by domain or by wallet:
// plain tables.
func dnsRecordsUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE dns_records (
			address TEXT PRIMARY KEY,
			owner TEXT,
			domain TEXT NOT NULL,
			next_resolver TEXT,
			wallet TEXT,
			site_adnl TEXT,
			storage_bag_id TEXT,
			known BOOLEAN NOT NULL,
			last_tx_lt BIGINT NOT NULL)`,
		`CREATE INDEX dns_records_domain ON dns_records (domain)`,
		`CREATE INDEX dns_records_wallet ON dns_records (wallet)`,
	)
}

func dnsRecordsDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS dns_records`)
}
