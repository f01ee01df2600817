package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTimeIndexes must stay in this file: bun names a Go migration
// after the file that registers it.
func registerTimeIndexes(m *migrate.Migrations) {
	m.MustRegister(timeIndexesUp, timeIndexesDown)
}

// A time window without an account (start_utime/end_utime alone) had no
// index: the newest-first scan of actions_order filtered its way back to
// the window, reading every newer action on the way (a window a day old
// read all of today). With these the planner can take the window's rows
// directly (both bounds: a bitmap AND of the two) and sort the few it
// finds, and still chooses the ordered scan for an open window near the
// head.
func timeIndexesUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE INDEX actions_start_utime ON actions (start_utime)`,
		`CREATE INDEX actions_end_utime ON actions (end_utime)`,
	)
}

func timeIndexesDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`DROP INDEX IF EXISTS actions_end_utime`,
		`DROP INDEX IF EXISTS actions_start_utime`,
	)
}
