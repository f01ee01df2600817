package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTraceKnown must stay in this file: bun names a Go migration
// after the file that registers it.
func registerTraceKnown(m *migrate.Migrations) {
	m.MustRegister(traceKnownUp, traceKnownDown)
}

// trace_known keeps, per trace, what an indexer's file said about the
// trace's accounts when it was imported (chain.KnownContracts as a JSON
// object by address: jetton wallets' masters and owners, sales' prices,
// NFT items' collections, ...). The classifier reads it beside the
// messages, and the chain cannot tell it again: without it, reclassify
// decoded those traces with less than the import had (NftMint read as
// SmartContractExec, sales lost). It is a snapshot of the indexer's view
// at that trace, so it is kept with the trace, not per account: two files
// may say different things of one account (an NFT's owner before and
// after a sale).
func traceKnownUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE trace_known (
			trace_id TEXT PRIMARY KEY,
			known TEXT NOT NULL)`,
	)
}

func traceKnownDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS trace_known`)
}
