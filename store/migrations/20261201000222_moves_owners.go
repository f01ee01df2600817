package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerMovesOwners must stay in this file: bun names a Go migration
// after the file that registers it.
func registerMovesOwners(m *migrate.Migrations) {
	m.MustRegister(movesOwnersUp, movesOwnersDown)
}

// A write that adds to the volumes asks which of its senders and receivers
// moved a jetton earlier the same day (distinct owners per bucket): by
// owner, each owner's few moves, where the jetton index read the whole
// day's moves of every touched jetton (store/analyticsadd.go ownersSeen).
func movesOwnersUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE INDEX analytics_moves_sender ON analytics_moves (sender, utime)`,
		`CREATE INDEX analytics_moves_receiver ON analytics_moves (receiver, utime)`,
	)
}

func movesOwnersDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX analytics_moves_receiver`, `DROP INDEX analytics_moves_sender`)
}
