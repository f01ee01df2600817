package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTxSeq must stay in this file: bun names a Go migration after the
// file that registers it.
func registerTxSeq(m *migrate.Migrations) {
	m.MustRegister(txSeqUp, txSeqDown)
}

// transactions.seq is a transaction's place in the stream of events
// (package notify), taken from the actions' counter (action_seq) by the
// commit that first stores it, so one resume cursor covers actions and
// transactions. Rows stored before this migration have none (NULL): they
// were committed before any stream could be told of them. transactions_seq
// serves the hub's read of what was committed after a position.
func txSeqUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE transactions ADD COLUMN seq BIGINT`,
		`CREATE INDEX transactions_seq ON transactions (seq)`,
	)
}

func txSeqDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS transactions_seq`, `ALTER TABLE transactions DROP COLUMN seq`)
}
