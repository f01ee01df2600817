package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerAccountsBalance must stay in this file: bun names a Go migration
// after the file that registers it.
func registerAccountsBalance(m *migrate.Migrations) {
	m.MustRegister(accountsBalanceUp, accountsBalanceDown)
}

// accounts_balance serves /api/v3/topAccountsByBalance: the stored
// accounts by balance, largest first (read backward, address breaking
// ties), a page without sorting the table.
func accountsBalanceUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `CREATE INDEX accounts_balance ON accounts (balance, address)`)
}

func accountsBalanceDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS accounts_balance`)
}
