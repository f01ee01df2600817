package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerJettonChanges must stay in this file: bun names a Go migration
// after the file that registers it.
func registerJettonChanges(m *migrate.Migrations) {
	m.MustRegister(jettonChangesUp, jettonChangesDown)
}

// The jettons_change events (package notify): one row per jetton wallet
// state the token registry read and stored as newer than the row it had,
// written in the registry's own commit with a seq from the streams'
// counter (action_seq), so a live stream and a replay by cursor read the
// same events with the balance the get method read. Matched by the wallet
// or its owner, hence an index on each with seq. Rows are few beside the
// transactions (at most one per wallet per batch that changed it), so a
// plain table; an operator trims it by seq like any log.
func jettonChangesUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE jetton_changes (
			seq BIGINT PRIMARY KEY,
			address TEXT NOT NULL,
			owner TEXT NOT NULL,
			jetton TEXT NOT NULL,
			balance TEXT,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL,
			last_tx_hash TEXT NOT NULL)`,
		`CREATE INDEX jetton_changes_address ON jetton_changes (address, seq)`,
		`CREATE INDEX jetton_changes_owner ON jetton_changes (owner, seq)`,
	)
}

func jettonChangesDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS jetton_changes`)
}
