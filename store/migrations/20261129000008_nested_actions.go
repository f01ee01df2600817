package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// registerNestedActions must stay in this file: bun names a Go migration
// after the file that registers it.
func registerNestedActions(m *migrate.Migrations) {
	m.MustRegister(nestedActionsUp, nestedActionsDown)
}

// Nested (child) actions: an action of a type newer than toncenter's
// first version also lists its steps as actions of the older types, each
// naming its parent and the types of its ancestors (nearest first,
// space-separated). Pages hide them unless the client's
// supported_action_types leave their ancestors out (store.NestedRule), so
// ancestors is copied to action_accounts as type is: an account's page
// tests it on the rows of its index walk.
//
// Existing rows are top-level actions: empty in both columns. A NOT NULL
// column with a constant default is only a catalog change on both
// databases (no table rewrite). On Postgres, ALTER TABLE on a partitioned
// parent adds the column to every partition, and the CREATE INDEX builds
// the index on each; partitions made later (store.ensurePartitions, PARTITION OF
// or LIKE the parent) take both from the parent.
//
// actions_children finds the steps of a page of actions (Action.children):
// partial, since all but a few rows are top-level.
//
// The order indexes that pages walk (an account's, the newest actions', a
// type's) are built again carrying ancestors, so that the rule is tested
// on the index entries and a walk past a deep offset stays index-only
// (without it, one heap visit per skipped row: 2.8-4.1 ms -> 7.7-11 ms for
// offset 10,000 of a hot account, docs/QUERY-PLANS.md). On Postgres it is
// an INCLUDE column, outside the key; SQLite has no INCLUDE, so it is the
// last key column, after the sort key, which changes no order.
// Rebuilding them reads the tables once: minutes at tens of millions of
// actions (docs/OPERATIONS.md).
func nestedActionsUp(ctx context.Context, db *bun.DB) error {
	stmts := []string{
		`ALTER TABLE actions ADD COLUMN parent_action_id text NOT NULL DEFAULT ''`,
		`ALTER TABLE actions ADD COLUMN ancestors text NOT NULL DEFAULT ''`,
		`ALTER TABLE action_accounts ADD COLUMN ancestors text NOT NULL DEFAULT ''`,
		`CREATE INDEX actions_children ON actions (parent_action_id, end_lt, action_id) WHERE parent_action_id <> ''`,
	}
	with := ", ancestors)"
	if db.Dialect().Name() == dialect.PG {
		with = ") INCLUDE (ancestors)"
	}
	for _, ix := range orderIndexes {
		stmts = append(stmts, `DROP INDEX `+ix.name, `CREATE INDEX `+ix.name+` ON `+ix.table+` (`+ix.key+with)
	}
	return execAll(ctx, db, stmts...)
}

// orderIndexes are the indexes pages walk in sort order, as they were
// before this migration.
var orderIndexes = []struct{ name, table, key string }{
	{"actions_order", "actions", "end_lt, action_id"},
	{"actions_type_order", "actions", "type, end_lt, action_id"},
	{"action_accounts_order", "action_accounts", "account, end_lt, action_id"},
	{"action_accounts_type_order", "action_accounts", "account, type, end_lt, action_id"},
}

func nestedActionsDown(ctx context.Context, db *bun.DB) error {
	var stmts []string
	for _, ix := range orderIndexes {
		stmts = append(stmts, `DROP INDEX `+ix.name, `CREATE INDEX `+ix.name+` ON `+ix.table+` (`+ix.key+`)`)
	}
	return execAll(ctx, db, append(stmts,
		`DROP INDEX IF EXISTS actions_children`,
		`ALTER TABLE action_accounts DROP COLUMN ancestors`,
		`ALTER TABLE actions DROP COLUMN ancestors`,
		`ALTER TABLE actions DROP COLUMN parent_action_id`,
	)...)
}
