package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerMultisigOrders must stay in this file: bun names a Go migration
// after the file that registers it.
func registerMultisigOrders(m *migrate.Migrations) {
	m.MustRegister(multisigOrdersUp, multisigOrdersDown)
}

// Multisig v2 orders (package contracts; /api/v3/multisig/orders and the
// wallets' orders): one row per order contract with what get_order_data
// answered on its state at last_tx_lt, replaced only by a reading at a
// later transaction, as in the other contract tables; known is false (the
// approvals, execution and the rest null) when the order had a
// transaction after the newest state read. Its signers are a JSON list:
// they are shown, never searched. Orders are looked up by address and by
// their multisig.
func multisigOrdersUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE multisig_orders (
			address TEXT PRIMARY KEY,
			multisig TEXT NOT NULL,
			order_seqno TEXT,
			threshold INTEGER,
			sent_for_execution BOOLEAN,
			approvals_mask TEXT,
			approvals_num INTEGER,
			expiration_date BIGINT,
			order_boc BYTES,
			signers TEXT,
			known BOOLEAN NOT NULL,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL)`,
		`CREATE INDEX multisig_orders_lt ON multisig_orders (last_tx_lt, address)`,
		`CREATE INDEX multisig_orders_multisig ON multisig_orders (multisig, last_tx_lt)`,
	)
}

func multisigOrdersDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS multisig_orders`)
}
