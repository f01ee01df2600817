package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerActionModel must stay in this file: bun names a Go migration
// after the file that registers it.
func registerActionModel(m *migrate.Migrations) {
	m.MustRegister(actionModelUp, actionModelDown)
}

// The action model of 2026-11-24: each action keeps what a page shows
// without further reads (its transactions, the trace's end, the external
// message's normalized hash, the masterchain block, the addresses of its
// value and every account taking part, space-separated), action_accounts
// carries start_lt for the lt filters, and messages keep the TEP-467
// normalized hash of external messages for msg_hash, and account_interfaces
// what each account's code is (from its code, or from an indexer's
// knowledge of it), space-separated, for the address book. Rows written before
// this migration get the cheap columns here; `tonql reclassify` re-derives
// their actions (new types, full values) from the stored transactions.
func actionModelUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE actions ADD COLUMN tx_hashes TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE actions ADD COLUMN trace_end_lt BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE actions ADD COLUMN trace_end_utime BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE actions ADD COLUMN trace_external_hash_norm TEXT`,
		`ALTER TABLE actions ADD COLUMN mc_seqno BIGINT`,
		`ALTER TABLE actions ADD COLUMN addresses TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE actions ADD COLUMN accounts TEXT NOT NULL DEFAULT ''`,
		`UPDATE actions SET tx_hashes = tx_hash,
			trace_end_lt = COALESCE((SELECT t.end_lt FROM traces t WHERE t.id = actions.trace_id), end_lt),
			trace_end_utime = COALESCE((SELECT t.end_utime FROM traces t WHERE t.id = actions.trace_id), end_utime)`,
		`CREATE INDEX actions_mc_seqno ON actions (mc_seqno, end_lt, action_id) WHERE mc_seqno IS NOT NULL`,

		`ALTER TABLE action_accounts ADD COLUMN start_lt BIGINT NOT NULL DEFAULT 0`,
		`UPDATE action_accounts SET start_lt = COALESCE((SELECT a.start_lt FROM actions a WHERE a.action_id = action_accounts.action_id), 0)`,

		`ALTER TABLE messages ADD COLUMN hash_norm TEXT`,
		`CREATE INDEX messages_hash_norm ON messages (hash_norm) WHERE hash_norm IS NOT NULL`,

		`CREATE TABLE account_interfaces (
			address TEXT PRIMARY KEY,
			interfaces TEXT NOT NULL)`,
	)
}

func actionModelDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`DROP TABLE IF EXISTS account_interfaces`,
		`DROP INDEX IF EXISTS messages_hash_norm`,
		`ALTER TABLE messages DROP COLUMN hash_norm`,
		`ALTER TABLE action_accounts DROP COLUMN start_lt`,
		`DROP INDEX IF EXISTS actions_mc_seqno`,
		`ALTER TABLE actions DROP COLUMN accounts`,
		`ALTER TABLE actions DROP COLUMN addresses`,
		`ALTER TABLE actions DROP COLUMN mc_seqno`,
		`ALTER TABLE actions DROP COLUMN trace_external_hash_norm`,
		`ALTER TABLE actions DROP COLUMN trace_end_utime`,
		`ALTER TABLE actions DROP COLUMN trace_end_lt`,
		`ALTER TABLE actions DROP COLUMN tx_hashes`,
	)
}
