package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerDecodedFacts must stay in this file: bun names a Go migration
// after the file that registers it.
func registerDecodedFacts(m *migrate.Migrations) {
	m.MustRegister(decodedFactsUp, decodedFactsDown)
}

// A transaction imported from decoded JSON (a toncenter trace file) has no
// raw BOC to decode again, and its row's columns dropped what the
// classifier reads: whether the compute phase was skipped or the action
// phase failed, the bounce phase, and of its messages the extra currencies
// (a failed free call is ok only when it carried nothing). facts keeps
// them (a JSON object; NULL for a transaction with a BOC, which holds
// them already), so reclassify sees the transaction the import saw.
//
// Nullable columns without a default are a catalog change on both
// databases; on Postgres ALTER TABLE on a partitioned parent adds them to
// every partition, and partitions made later take them from the parent.
func decodedFactsUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE transactions ADD COLUMN facts TEXT`,
		`ALTER TABLE messages ADD COLUMN facts TEXT`,
	)
}

func decodedFactsDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`ALTER TABLE transactions DROP COLUMN facts`,
		`ALTER TABLE messages DROP COLUMN facts`,
	)
}
