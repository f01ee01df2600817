package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerActionSeq must stay in this file: bun names a Go migration after
// the file that registers it.
func registerActionSeq(m *migrate.Migrations) {
	m.MustRegister(actionSeqUp, actionSeqDown)
}

// Action streams (package notify) need an order in which actions become
// visible: actions.seq is given from the one-row counter action_seq when an
// action is first written, under that row's lock, so seqs grow in commit
// order and "everything after seq N" is a resume point that never skips a
// later commit. Rows written before this migration keep seq 0: they are
// history, never streamed.
func actionSeqUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE actions ADD COLUMN seq BIGINT NOT NULL DEFAULT 0`,
		`CREATE INDEX actions_seq ON actions (seq)`,
		`CREATE TABLE action_seq (
			id INTEGER PRIMARY KEY,
			last BIGINT NOT NULL)`,
		`INSERT INTO action_seq (id, last) VALUES (1, 0)`,
	)
}

func actionSeqDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`DROP TABLE IF EXISTS action_seq`,
		`DROP INDEX IF EXISTS actions_seq`,
		`ALTER TABLE actions DROP COLUMN seq`,
	)
}
