package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTxSlots must stay in this file: bun names a Go migration after
// the file that registers it.
func registerTxSlots(m *migrate.Migrations) {
	m.MustRegister(txSlotsUp, txSlotsDown)
}

// A transaction stored from now on takes three numbers of the counter
// (store/txseq.go): its own seq and the next two, the places of the events
// derived from it (its account's state change, its jetton wallet's balance
// change), so each event has a seq of its own and one cursor resumes them
// all. action_seq.tx_slots_from is the counter's value when this ran:
// transactions at or below it were numbered one per transaction, and have
// no derived events (their neighbours' numbers are other events').
func txSlotsUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE action_seq ADD COLUMN tx_slots_from BIGINT NOT NULL DEFAULT 0`,
		`UPDATE action_seq SET tx_slots_from = last`,
	)
}

func txSlotsDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `ALTER TABLE action_seq DROP COLUMN tx_slots_from`)
}
