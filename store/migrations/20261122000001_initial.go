package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerInitial must stay in this file: bun names a Go migration after the
// file that registers it.
func registerInitial(m *migrate.Migrations) {
	m.MustRegister(initialUp, initialDown)
}

func initialUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`CREATE TABLE transactions (
			hash TEXT PRIMARY KEY,
			account TEXT NOT NULL,
			lt BIGINT NOT NULL,
			utime BIGINT NOT NULL,
			trace_id TEXT NOT NULL,
			orig_status TEXT NOT NULL,
			end_status TEXT NOT NULL,
			total_fees BIGINT NOT NULL,
			success BOOLEAN NOT NULL,
			aborted BOOLEAN NOT NULL,
			compute_exit_code INTEGER NOT NULL,
			in_msg_hash TEXT NOT NULL,
			mc_seqno BIGINT NOT NULL,
			boc BYTES)`,
		`CREATE INDEX transactions_account_lt ON transactions (account, lt)`,
		`CREATE INDEX transactions_trace ON transactions (trace_id)`,
		`CREATE INDEX transactions_lt ON transactions (lt)`,

		`CREATE TABLE messages (
			tx_hash TEXT NOT NULL,
			direction TEXT NOT NULL,
			seq INTEGER NOT NULL,
			hash TEXT NOT NULL,
			source TEXT NOT NULL,
			destination TEXT NOT NULL,
			value BIGINT NOT NULL,
			fwd_fee BIGINT NOT NULL,
			created_lt BIGINT NOT NULL,
			opcode BIGINT,
			bounce BOOLEAN NOT NULL,
			bounced BOOLEAN NOT NULL,
			body BYTES,
			init_state BYTES,
			PRIMARY KEY (tx_hash, direction, seq))`,
		`CREATE INDEX messages_hash ON messages (hash)`,

		`CREATE TABLE traces (
			id TEXT PRIMARY KEY,
			start_lt BIGINT NOT NULL,
			end_lt BIGINT NOT NULL,
			start_utime BIGINT NOT NULL,
			end_utime BIGINT NOT NULL,
			complete BOOLEAN NOT NULL,
			transactions INTEGER NOT NULL)`,
		`CREATE INDEX traces_pending ON traces (start_lt) WHERE NOT complete`,

		`CREATE TABLE actions (
			action_id TEXT COLLATE_C PRIMARY KEY,
			trace_id TEXT NOT NULL,
			tx_hash TEXT NOT NULL,
			type TEXT NOT NULL,
			status TEXT NOT NULL,
			value TEXT NOT NULL,
			start_lt BIGINT NOT NULL,
			start_utime BIGINT NOT NULL,
			end_lt BIGINT NOT NULL,
			end_utime BIGINT NOT NULL)`,
		`CREATE INDEX actions_order ON actions (end_lt, action_id)`,
		`CREATE INDEX actions_type_order ON actions (type, end_lt, action_id)`,
		`CREATE INDEX actions_trace_order ON actions (trace_id, end_lt, action_id)`,

		`CREATE TABLE action_accounts (
			account TEXT NOT NULL,
			action_id TEXT COLLATE_C NOT NULL,
			roles TEXT NOT NULL,
			type TEXT NOT NULL,
			end_lt BIGINT NOT NULL,
			start_utime BIGINT NOT NULL,
			end_utime BIGINT NOT NULL,
			PRIMARY KEY (account, action_id))`,
		`CREATE INDEX action_accounts_order ON action_accounts (account, end_lt, action_id)`,
		`CREATE INDEX action_accounts_type_order ON action_accounts (account, type, end_lt, action_id)`,
		`CREATE INDEX action_accounts_action ON action_accounts (action_id)`,

		`CREATE TABLE action_transactions (
			action_id TEXT COLLATE_C NOT NULL,
			tx_hash TEXT NOT NULL,
			tx_lt BIGINT NOT NULL,
			PRIMARY KEY (action_id, tx_hash))`,
		`CREATE INDEX action_transactions_hash ON action_transactions (tx_hash)`,
		`CREATE INDEX action_transactions_lt ON action_transactions (tx_lt)`,

		`CREATE TABLE accounts (
			address TEXT PRIMARY KEY,
			status TEXT NOT NULL,
			code_hash TEXT NOT NULL,
			is_wallet BOOLEAN NOT NULL,
			balance BIGINT NOT NULL,
			last_tx_lt BIGINT NOT NULL,
			last_tx_hash TEXT NOT NULL,
			shard_account_boc BYTES,
			read_at_utime BIGINT NOT NULL)`,

		`CREATE TABLE dns_names (
			domain TEXT PRIMARY KEY,
			address TEXT NOT NULL)`,
		`CREATE INDEX dns_names_address ON dns_names (address)`,

		`CREATE TABLE chain_configs (
			mc_seqno BIGINT PRIMARY KEY,
			utime BIGINT NOT NULL,
			config_boc BYTES NOT NULL,
			libraries_boc BYTES)`,
	)
}

func initialDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db,
		`DROP TABLE IF EXISTS chain_configs`, `DROP TABLE IF EXISTS dns_names`,
		`DROP TABLE IF EXISTS accounts`, `DROP TABLE IF EXISTS action_transactions`,
		`DROP TABLE IF EXISTS action_accounts`, `DROP TABLE IF EXISTS actions`,
		`DROP TABLE IF EXISTS traces`, `DROP TABLE IF EXISTS messages`,
		`DROP TABLE IF EXISTS transactions`)
}
