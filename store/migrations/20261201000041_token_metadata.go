package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTokenMetadata must stay in this file: bun names a Go migration
// after the file that registers it.
func registerTokenMetadata(m *migrate.Migrations) {
	m.MustRegister(tokenMetadataUp, tokenMetadataDown)
}

// token_metadata holds one row per token (jetton master, NFT collection,
// NFT item): its TEP-64 content cell (content, BOC) and content_hash (the
// cell's hash) as the token registry hands them over, and the metadata the
// worker made from them (package metadata): valid and, when not, reason;
// the TEP-64 values; extra (every other attribute, a JSON object as text);
// source (onchain, offchain, semichain).
//
// The row is also the worker's job: next_attempt_at is when it is due
// (NULL: not due until its content changes or someone asks for a
// refresh), attempts the failed attempts in a row, last_error the newest
// failure's reason. A worker claims due rows by moving next_attempt_at
// past its lease, so servers sharing a database never fetch one token
// twice at once. Times are unix milliseconds (backoff steps are shorter
// than seconds in tests).
//
// token_metadata_due is partial: all but the due rows are left out, so
// the claim reads only what is due.
func tokenMetadataUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE token_metadata (
			address TEXT PRIMARY KEY,
			kind TEXT NOT NULL,
			content_hash BYTES NOT NULL,
			content BYTES NOT NULL,
			valid BOOLEAN NOT NULL DEFAULT FALSE,
			reason TEXT NOT NULL DEFAULT '',
			name TEXT,
			symbol TEXT,
			decimals INTEGER,
			image TEXT,
			description TEXT,
			uri TEXT,
			extra TEXT,
			source TEXT NOT NULL DEFAULT '',
			fetched_at BIGINT,
			attempts INTEGER NOT NULL DEFAULT 0,
			last_error TEXT NOT NULL DEFAULT '',
			next_attempt_at BIGINT,
			updated_at BIGINT NOT NULL)`,
		`CREATE INDEX token_metadata_due ON token_metadata (next_attempt_at) WHERE next_attempt_at IS NOT NULL`,
	)
}

func tokenMetadataDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS token_metadata`)
}
