package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerMultisig must stay in this file: bun names a Go migration after
// the file that registers it.
func registerMultisig(m *migrate.Migrations) {
	m.MustRegister(multisigUp, multisigDown)
}

// Multisig v2 wallets (package contracts; /api/v3/multisig/wallets): one
// row per wallet with what get_multisig_data answered on its state at
// last_tx_lt, only replaced by one read at a later transaction, as in the
// other contract tables; known is false (seqno, threshold null, members
// not shown) when the wallet had a transaction after the newest state
// read. Its signers and proposers, in index order, are rows of
// multisig_members so that wallet_address finds the multisigs of a wallet
// by index on both databases. Few multisigs exist: plain tables.
func multisigUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE multisig_wallets (
			address TEXT PRIMARY KEY,
			next_order_seqno TEXT,
			threshold INTEGER,
			known BOOLEAN NOT NULL,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL)`,
		`CREATE INDEX multisig_wallets_lt ON multisig_wallets (last_tx_lt, address)`,
		`CREATE TABLE multisig_members (
			contract TEXT NOT NULL,
			proposer BOOLEAN NOT NULL,
			idx INTEGER NOT NULL,
			wallet TEXT NOT NULL,
			PRIMARY KEY (contract, proposer, idx))`,
		`CREATE INDEX multisig_members_wallet ON multisig_members (wallet)`,
	)
}

func multisigDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS multisig_members`, `DROP TABLE IF EXISTS multisig_wallets`)
}
