package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTokenMoves must stay in this file: bun names a Go migration
// after the file that registers it.
func registerTokenMoves(m *migrate.Migrations) {
	m.MustRegister(tokenMovesUp, tokenMovesDown)
}

// token_moves holds every jetton transfer, jetton burn and NFT transfer
// request a stored transaction took (chain.TokenMove), decoded once when
// the transaction is written: toncenter's /jetton/transfers,
// /jetton/burns and /nft/transfers list them by owner, by wallet or item,
// by master or collection (through the registry), and by time, and
// decode nothing. One row per transaction (its incoming message).
//
// Each index leads with what a route filters by and ends with tx_lt, the
// order of every list, so a page walks one index in order and stops after
// limit+offset rows: source (the owner asking; out), destination (the new
// owner; in), contract (the wallet or item; also a master's or
// collection's moves, through the registry's wallets or items), and kind
// alone (no filter). Not partitioned: a row is ~300 bytes and only
// transfer and burn requests have one (about 1 in 10 transactions).
func tokenMovesUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE token_moves (
			tx_hash TEXT PRIMARY KEY,
			kind TEXT NOT NULL,
			tx_lt BIGINT NOT NULL,
			tx_utime BIGINT NOT NULL,
			trace_id TEXT NOT NULL,
			query_id TEXT NOT NULL,
			amount TEXT NOT NULL,
			source TEXT NOT NULL,
			destination TEXT NOT NULL,
			contract TEXT NOT NULL,
			response_destination TEXT NOT NULL,
			custom_payload TEXT NOT NULL,
			forward_amount TEXT NOT NULL,
			forward_payload TEXT NOT NULL)`,
		`CREATE INDEX token_moves_kind ON token_moves (kind, tx_lt)`,
		`CREATE INDEX token_moves_source ON token_moves (source, kind, tx_lt)`,
		`CREATE INDEX token_moves_destination ON token_moves (destination, kind, tx_lt)`,
		`CREATE INDEX token_moves_contract ON token_moves (contract, kind, tx_lt)`,
	)
}

func tokenMovesDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS token_moves`)
}
