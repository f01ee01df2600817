package migrations

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// registerLtPartitions must stay in this file: bun names a Go migration
// after the file that registers it.
func registerLtPartitions(m *migrate.Migrations) {
	m.MustRegister(ltPartitionsUp, ltPartitionsDown)
}

// LtSpan is the logical time one partition covers: 1e13, about six months
// of mainnet at its 2025-2026 rate (5.6e10 a day between blocks of July
// 2025 and May 2026; 2.8e10 a day in 2024), eight partitions for the whole
// history to 2026. Shorter spans prune finer but cost every query that
// cannot prune (an account's newest page, a lookup by id) planning time
// per partition: 0.07 ms each, measured (docs/QUERY-PLANS.md), which at a
// week or a month per partition would be several milliseconds a page.
// Bounds are multiples of it, so a partition's name
// (actions_p70000000000000) tells its range. Changing it would make new
// partitions overlap old ones: it is part of the schema.
const LtSpan = 10_000_000_000_000

// PartitionedTable is a table partitioned by range of one lt column.
type PartitionedTable struct {
	Name string
	Key  string // the partition key
	// columns, pk (unpartitioned and partitioned, which must hold the key)
	// and indexes are frozen DDL of this migration.
	columns    string
	pk, partPK string
	indexes    []string
}

// PartitionedTables are the tables that grow with the chain and are
// partitioned on Postgres. messages is not: no query narrows messages by
// logical time (they are found by transaction hash and by their own hash),
// so partitions would only multiply the index probes of every lookup, and
// a message's created_lt is not its transaction's lt, so partitioning it
// with the others would need a new column copied from the transaction.
var PartitionedTables = []PartitionedTable{
	{Name: "actions", Key: "end_lt",
		columns: `action_id text COLLATE "C" NOT NULL, trace_id text NOT NULL, tx_hash text NOT NULL,
			type text NOT NULL, status text NOT NULL, value text NOT NULL, start_lt bigint NOT NULL,
			start_utime bigint NOT NULL, end_lt bigint NOT NULL, end_utime bigint NOT NULL,
			tx_hashes text NOT NULL DEFAULT '', trace_end_lt bigint NOT NULL DEFAULT 0,
			trace_end_utime bigint NOT NULL DEFAULT 0, trace_external_hash_norm text, mc_seqno bigint,
			addresses text NOT NULL DEFAULT '', accounts text NOT NULL DEFAULT '', seq bigint NOT NULL DEFAULT 0`,
		pk: "action_id", partPK: "action_id, end_lt",
		indexes: []string{
			`CREATE INDEX actions_order ON actions (end_lt, action_id)`,
			`CREATE INDEX actions_type_order ON actions (type, end_lt, action_id)`,
			`CREATE INDEX actions_trace_order ON actions (trace_id, end_lt, action_id)`,
			`CREATE INDEX actions_mc_seqno ON actions (mc_seqno, end_lt, action_id) WHERE mc_seqno IS NOT NULL`,
			`CREATE INDEX actions_seq ON actions (seq)`,
			`CREATE INDEX actions_start_utime ON actions (start_utime)`,
			`CREATE INDEX actions_end_utime ON actions (end_utime)`,
		}},
	{Name: "action_accounts", Key: "end_lt",
		columns: `account text NOT NULL, action_id text COLLATE "C" NOT NULL, roles text NOT NULL,
			type text NOT NULL, end_lt bigint NOT NULL, start_utime bigint NOT NULL, end_utime bigint NOT NULL,
			start_lt bigint NOT NULL DEFAULT 0`,
		pk: "account, action_id", partPK: "account, action_id, end_lt",
		indexes: []string{
			`CREATE INDEX action_accounts_order ON action_accounts (account, end_lt, action_id)`,
			`CREATE INDEX action_accounts_type_order ON action_accounts (account, type, end_lt, action_id)`,
			`CREATE INDEX action_accounts_action ON action_accounts (action_id)`,
		}},
	{Name: "action_transactions", Key: "tx_lt",
		columns: `action_id text COLLATE "C" NOT NULL, tx_hash text NOT NULL, tx_lt bigint NOT NULL`,
		pk:      "action_id, tx_hash", partPK: "action_id, tx_hash, tx_lt",
		indexes: []string{
			`CREATE INDEX action_transactions_hash ON action_transactions (tx_hash)`,
			`CREATE INDEX action_transactions_lt ON action_transactions (tx_lt)`,
		}},
	{Name: "transactions", Key: "lt",
		columns: `hash text NOT NULL, account text NOT NULL, lt bigint NOT NULL, utime bigint NOT NULL,
			trace_id text NOT NULL, orig_status text NOT NULL, end_status text NOT NULL, total_fees bigint NOT NULL,
			success boolean NOT NULL, aborted boolean NOT NULL, compute_exit_code integer NOT NULL,
			in_msg_hash text NOT NULL, mc_seqno bigint NOT NULL, boc bytea`,
		pk: "hash", partPK: "hash, lt",
		indexes: []string{
			`CREATE INDEX transactions_account_lt ON transactions (account, lt)`,
			`CREATE INDEX transactions_trace ON transactions (trace_id)`,
			`CREATE INDEX transactions_lt ON transactions (lt)`,
		}},
}

// PartitionName is the name of t's partition starting at start (a
// multiple of LtSpan).
func PartitionName(t PartitionedTable, start int64) string {
	return fmt.Sprintf("%s_p%d", t.Name, start)
}

// CreatePartitionSQL creates t's partition for [start, start+LtSpan).
// CREATE TABLE ... PARTITION OF locks the parent against readers and
// writers, which a migration holds anyway.
func CreatePartitionSQL(t PartitionedTable, start int64) string {
	return fmt.Sprintf("CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%d) TO (%d)",
		PartitionName(t, start), t.Name, start, start+LtSpan)
}

// AddPartitionSQL makes the same partition while the table is in use: an
// empty table shaped like the parent, then attached, which takes only a
// SHARE UPDATE EXCLUSIVE lock on the parent (readers and writers go on)
// and builds the parent's indexes on it (at once: it is empty). Run both
// statements in one transaction.
func AddPartitionSQL(t PartitionedTable, start int64) []string {
	name := PartitionName(t, start)
	return []string{
		fmt.Sprintf("CREATE TABLE %s (LIKE %s INCLUDING DEFAULTS INCLUDING CONSTRAINTS)", name, t.Name),
		fmt.Sprintf("ALTER TABLE %s ATTACH PARTITION %s FOR VALUES FROM (%d) TO (%d)", t.Name, name, start, start+LtSpan),
	}
}

// ltPartitionsUp turns each table into one partitioned by range of its lt,
// on Postgres (SQLite keeps its tables: one file, one host, no need). The
// rows are copied into a new partitioned table, with a partition for every
// span that holds data and one for the span after the newest row; the
// indexes are then built on the parent (each partition gets its own),
// after the copy, which is faster than maintaining them row by row.
//
// There is no DEFAULT partition: writers make a span's partitions before
// they write into it (store.ensurePartitions), so a row with no partition
// is a bug, better refused than parked where it would stop its span's
// partition from ever being made (Postgres cannot create a partition whose
// range has rows in DEFAULT) and where every query that cannot prune would
// read it.
//
// One transaction: a failure leaves the old tables as they were. The
// tables are locked meanwhile; a large database should be migrated with
// writers stopped (docs/OPERATIONS.md).
func ltPartitionsUp(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var starts []int64
		var union []string
		for _, t := range PartitionedTables {
			union = append(union, fmt.Sprintf("SELECT DISTINCT %s / %d * %d AS s FROM %s", t.Key, LtSpan, LtSpan, t.Name))
		}
		if err := tx.NewRaw("SELECT s FROM ("+strings.Join(union, " UNION ")+") AS u ORDER BY s").Scan(ctx, &starts); err != nil {
			return fmt.Errorf("read lt spans: %w", err)
		}
		if len(starts) > 0 {
			starts = append(starts, starts[len(starts)-1]+LtSpan)
		}
		for _, t := range PartitionedTables {
			stmts := []string{
				fmt.Sprintf("ALTER TABLE %s RENAME TO %s_unpartitioned", t.Name, t.Name),
				fmt.Sprintf("CREATE TABLE %s (%s) PARTITION BY RANGE (%s)", t.Name, t.columns, t.Key),
			}
			for _, s := range starts {
				stmts = append(stmts, CreatePartitionSQL(t, s))
			}
			stmts = append(stmts,
				fmt.Sprintf("INSERT INTO %s SELECT * FROM %s_unpartitioned", t.Name, t.Name),
				fmt.Sprintf("DROP TABLE %s_unpartitioned", t.Name),
				fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s)", t.Name, t.partPK))
			stmts = append(stmts, t.indexes...)
			// Autovacuum never analyzes a partitioned parent, whose
			// statistics the planner uses for joins.
			stmts = append(stmts, "ANALYZE "+t.Name)
			for _, s := range stmts {
				if _, err := tx.ExecContext(ctx, s); err != nil {
					return fmt.Errorf("partition %s: %w", t.Name, err)
				}
			}
		}
		return nil
	})
}

// ltPartitionsDown copies the rows back into plain tables (detached
// partitions are not part of the parent any more and stay as they are).
func ltPartitionsDown(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, t := range PartitionedTables {
			stmts := []string{
				fmt.Sprintf("ALTER TABLE %s RENAME TO %s_partitioned", t.Name, t.Name),
				fmt.Sprintf("CREATE TABLE %s (%s)", t.Name, t.columns),
				fmt.Sprintf("INSERT INTO %s SELECT * FROM %s_partitioned", t.Name, t.Name),
				fmt.Sprintf("DROP TABLE %s_partitioned", t.Name),
				fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s)", t.Name, t.pk),
			}
			stmts = append(append(stmts, t.indexes...), "ANALYZE "+t.Name)
			for _, s := range stmts {
				if _, err := tx.ExecContext(ctx, s); err != nil {
					return fmt.Errorf("unpartition %s: %w", t.Name, err)
				}
			}
		}
		return nil
	})
}
