// Package migrations holds the schema history. Migrations are frozen SQL,
// not derived from the current models, so an old database always upgrades
// through the same steps. They are compiled into the binary (no files to
// ship) and run by `tonql serve` and `tonql migrate`.
package migrations

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// New returns every migration of the schema, in order.
func New() *migrate.Migrations {
	m := migrate.NewMigrations()
	registerInitial(m)
	registerAPIKeys(m)
	registerFollowCursor(m)
	registerActionModel(m)
	registerActionSeq(m)
	registerTimeIndexes(m)
	registerLtPartitions(m)
	registerNestedActions(m)
	registerTraceKnown(m)
	registerDecodedFacts(m)
	registerTokenMetadata(m)
	registerTokenVersion(m)
	registerTokens(m)
	registerBlocks(m)
	registerTxBlock(m)
	registerAccountsBalance(m)
	registerBlocksGenUtime(m)
	registerBlockExtra(m)
	registerTracesOrder(m)
	registerWebhooks(m)
	registerTokenMoves(m)
	registerAnalytics(m)
	registerPendingTraces(m)
	registerTraceExternalHash(m)
	registerContracts(m)
	registerDNSRecords(m)
	registerCandlesKept(m)
	registerMovesOwners(m)
	registerTxSeq(m)
	registerMessageBodyHash(m)
	registerTxSlots(m)
	registerMessageCreatedAt(m)
	registerTraceSeq(m)
	registerMultisig(m)
	registerJettonChanges(m)
	registerMultisigOrders(m)
	return m
}

// execAll runs statements in one transaction (both databases have
// transactional DDL, so a failed migration leaves nothing half-made). It runs
// statements written for Postgres, adapting the few words that
// differ on SQLite: BYTES is bytea/BLOB, and COLLATE_C pins byte-order
// comparison of ids on Postgres so paging order is the same on both.
func execAll(ctx context.Context, db *bun.DB, stmts ...string) error {
	pg := db.Dialect().Name() == dialect.PG
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, s := range stmts {
			if pg {
				s = strings.NewReplacer("BYTES", "bytea", "COLLATE_C", `COLLATE "C"`).Replace(s)
			} else {
				s = strings.NewReplacer("BYTES", "BLOB", "COLLATE_C", "").Replace(s)
			}
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
}
