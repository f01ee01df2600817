package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerContracts must stay in this file: bun names a Go migration after
// the file that registers it.
func registerContracts(m *migrate.Migrations) {
	m.MustRegister(contractsUp, contractsDown)
}

// Contracts other than tokens that toncenter's v3 answers from their
// state (package contracts): fixed-price NFT sales (/api/v3/nft/sales)
// and vesting wallets with their whitelists (/api/v3/vesting). As in the
// token registry, a row is the get methods' answer on the account's state
// at last_tx_lt and is only replaced by one read at a later transaction;
// known is false when the account had a transaction after the newest
// state read (its values are then not shown). Few such contracts exist
// (thousands, not millions): plain tables.
func contractsUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE nft_sales (
			address TEXT PRIMARY KEY,
			nft TEXT NOT NULL,
			seller TEXT,
			marketplace TEXT,
			full_price TEXT,
			marketplace_fee TEXT,
			royalty_address TEXT,
			royalty_amount TEXT,
			known BOOLEAN NOT NULL,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL)`,
		`CREATE INDEX nft_sales_nft ON nft_sales (nft)`,
		`CREATE TABLE vesting_contracts (
			address TEXT PRIMARY KEY,
			start_time BIGINT NOT NULL,
			total_duration BIGINT NOT NULL,
			unlock_period BIGINT NOT NULL,
			cliff_duration BIGINT NOT NULL,
			total_amount TEXT NOT NULL,
			sender TEXT,
			owner TEXT,
			known BOOLEAN NOT NULL,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL)`,
		`CREATE INDEX vesting_contracts_sender ON vesting_contracts (sender)`,
		`CREATE INDEX vesting_contracts_owner ON vesting_contracts (owner)`,
		`CREATE TABLE vesting_whitelist (
			contract TEXT NOT NULL,
			wallet TEXT NOT NULL,
			PRIMARY KEY (contract, wallet))`,
		`CREATE INDEX vesting_whitelist_wallet ON vesting_whitelist (wallet)`,
	)
}

func contractsDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS vesting_whitelist`, `DROP TABLE IF EXISTS vesting_contracts`,
		`DROP TABLE IF EXISTS nft_sales`)
}
