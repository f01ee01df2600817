package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
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
//
// It was published once as 20261201000130_tx_seq and withdrawn; a database
// that ran that one has the column and index already, and keeps them.
func txSeqUp(ctx context.Context, db *bun.DB) error {
	var n int
	q := `SELECT count(*) FROM pragma_table_info('transactions') WHERE name = 'seq'`
	if db.Dialect().Name() == dialect.PG {
		q = `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'transactions' AND column_name = 'seq'`
	}
	if err := db.NewRaw(q).Scan(ctx, &n); err != nil {
		return err
	}
	stmts := []string{`CREATE INDEX IF NOT EXISTS transactions_seq ON transactions (seq)`}
	if n == 0 {
		stmts = append([]string{`ALTER TABLE transactions ADD COLUMN seq BIGINT`}, stmts...)
	}
	return execAll(ctx, db, stmts...)
}

func txSeqDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS transactions_seq`, `ALTER TABLE transactions DROP COLUMN seq`)
}
