package migrations

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// registerTokens must stay in this file: bun names a Go migration after
// the file that registers it.
func registerTokens(m *migrate.Migrations) {
	m.MustRegister(tokensUp, tokensDown)
}

// TokenHashPartitions is the number of hash partitions of jetton_wallets
// and nft_items on Postgres. These two tables grow with the chain (one
// row per holder and per item, tens of millions on mainnet), but a row is
// an account's current state, rewritten at every transaction of the
// account: partitioned by lt like actions, each update would move the row
// to the newest partition and old partitions could never be dropped
// without losing live holdings. Hashing the address spreads rows evenly,
// keeps a lookup by address on one partition, lets VACUUM and index
// builds work a partition at a time, and is how Citus distributes such a
// table by account. A query by owner or by master probes one index per
// partition (8 small probes). Part of the schema: changing it means
// rewriting the tables.
const TokenHashPartitions = 8

// The token registry (package tokens): one row per jetton master, jetton
// wallet, NFT collection and NFT item, as its get methods read on its
// account state; last_tx_lt is that state's last transaction, and a row is
// replaced only by one read at the same or a later transaction.
//
// Addresses are raw upper-case text like everywhere else; hashes base64.
// A jetton balance is kept as a 40-digit zero-padded decimal string, so
// that text order is numeric order on both databases (jetton amounts are
// VarUInteger 16: below 2^120 < 10^37) and a page sorted by balance reads
// the (jetton, balance) or (owner, balance) index in order; NULL is
// unknown. NFT indexes can be 256-bit (Telemint's are hashes): kept as
// decimal text and also padded (idx_key, 78 digits) for ordering.
// content_json is the content's on-chain attributes (and its uri) as a
// JSON object, made once at write time for the routes (toncenter's
// jetton_content, collection_content, content): pages decode nothing.
// real_owner is the owner, or for an item on sale the seller its sale
// contract names (toncenter's include_on_sale asks by it).
func tokensUp(ctx context.Context, db *bun.DB) error {
	pg := db.Dialect().Name() == dialect.PG
	partitioned := func(name string) (suffix string, parts []string) {
		if !pg {
			return "", nil
		}
		for i := 0; i < TokenHashPartitions; i++ {
			parts = append(parts, fmt.Sprintf("CREATE TABLE %s_h%d PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)",
				name, i, name, TokenHashPartitions, i))
		}
		return " PARTITION BY HASH (address)", parts
	}
	wSuffix, wParts := partitioned("jetton_wallets")
	iSuffix, iParts := partitioned("nft_items")
	stmts := []string{
		`CREATE TABLE jetton_masters (
			address TEXT PRIMARY KEY,
			total_supply TEXT NOT NULL,
			mintable BOOLEAN NOT NULL,
			admin TEXT,
			content BYTES,
			content_json TEXT,
			wallet_code_hash TEXT NOT NULL,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL)`,
		`CREATE INDEX jetton_masters_admin ON jetton_masters (admin)`,
		`CREATE TABLE jetton_wallets (
			address TEXT NOT NULL,
			owner TEXT NOT NULL,
			jetton TEXT NOT NULL,
			balance TEXT,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL,
			PRIMARY KEY (address))` + wSuffix,
	}
	stmts = append(stmts, wParts...)
	stmts = append(stmts,
		`CREATE INDEX jetton_wallets_owner ON jetton_wallets (owner, balance)`,
		`CREATE INDEX jetton_wallets_jetton ON jetton_wallets (jetton, balance)`,
		`CREATE TABLE nft_collections (
			address TEXT PRIMARY KEY,
			owner TEXT,
			next_item_index TEXT NOT NULL,
			content BYTES,
			content_json TEXT,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL)`,
		`CREATE INDEX nft_collections_owner ON nft_collections (owner)`,
		`CREATE TABLE nft_items (
			address TEXT NOT NULL,
			init BOOLEAN NOT NULL,
			idx TEXT NOT NULL,
			idx_key TEXT NOT NULL,
			collection TEXT NOT NULL DEFAULT '',
			owner TEXT,
			content BYTES,
			content_json TEXT,
			sale_contract TEXT,
			real_owner TEXT,
			code_hash TEXT NOT NULL,
			data_hash TEXT NOT NULL,
			last_tx_lt BIGINT NOT NULL,
			PRIMARY KEY (address))`+iSuffix,
	)
	stmts = append(stmts, iParts...)
	stmts = append(stmts,
		`CREATE INDEX nft_items_owner ON nft_items (owner, collection, idx_key)`,
		`CREATE INDEX nft_items_real_owner ON nft_items (real_owner, collection, idx_key)`,
		`CREATE INDEX nft_items_collection ON nft_items (collection, idx_key)`,
	)
	return execAll(ctx, db, stmts...)
}

func tokensDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS nft_items`, `DROP TABLE IF EXISTS nft_collections`,
		`DROP TABLE IF EXISTS jetton_wallets`, `DROP TABLE IF EXISTS jetton_masters`)
}
