package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/chain"
)

// bulkTables are the tables a bulk load fills row by row; their indexes are
// built once at the end instead of kept up to date per row.
var bulkTables = []string{"actions", "action_accounts", "action_transactions", "transactions", "messages", "traces"}

// BulkLoad fills the action tables of a database that nothing reads or
// writes meanwhile (a load test's, or a backfill before the server starts):
// it drops the tables' indexes and builds them once at the end, which is
// several times cheaper than maintaining them per row. On Postgres with
// the three tables empty it also drops their primary keys and COPYs rows
// straight into the tables from any number of goroutines; otherwise the
// keys stay and actions are written by SaveBatch. SQLite: SaveBatch, no
// index is touched.
//
// What a direct load gives up, and why that is only for a database no one
// uses yet: rows are not checked against stored ones (the keys come back
// in Finish, which fails naming the key if two actions share an id), seqs
// are taken outside the commit order, so a stream subscriber could miss
// actions committed out of turn (seq.go), and a load killed before Finish
// leaves the tables without indexes (the next BeginBulkLoad refuses them).
type BulkLoad struct {
	s       *Store
	direct  bool
	indexes []deferredIndex
}

// deferredIndex is an index dropped for the load: the statement that makes
// it again, as Postgres itself spells it.
type deferredIndex struct {
	name, table, create string
	key                 bool // a primary key: dropped and added with its constraint
}

// BeginBulkLoad drops the indexes of the action tables (and their primary
// keys when the tables are empty) until Finish.
func (s *Store) BeginBulkLoad(ctx context.Context) (*BulkLoad, error) {
	b := &BulkLoad{s: s}
	if !s.IsPostgres() {
		return b, nil
	}
	// A direct load killed before Finish leaves the tables without their
	// keys, and the dropped definitions died with the process: loading on
	// would write duplicates nothing could catch.
	var keys int
	if err := s.db.NewRaw(`SELECT count(*) FROM pg_constraint
		WHERE contype = 'p' AND conrelid IN (SELECT to_regclass(t) FROM unnest(?::text[]) AS t)`,
		textArray(bulkTables)).Scan(ctx, &keys); err != nil {
		return nil, err
	}
	if keys < len(bulkTables) {
		return nil, fmt.Errorf("the action and chain tables have %d of their %d primary keys: an earlier bulk load did not finish; "+
			"its data is incomplete and its indexes are gone, so drop the database and load it again", keys, len(bulkTables))
	}
	var stored bool
	if err := s.db.NewRaw(`SELECT EXISTS (SELECT 1 FROM actions) OR EXISTS (SELECT 1 FROM action_accounts)
		OR EXISTS (SELECT 1 FROM action_transactions) OR EXISTS (SELECT 1 FROM transactions)
		OR EXISTS (SELECT 1 FROM messages) OR EXISTS (SELECT 1 FROM traces)`).Scan(ctx, &stored); err != nil {
		return nil, err
	}
	b.direct = !stored
	var defs []struct {
		Name  string `bun:"name"`
		Table string `bun:"tbl"`
		Def   string `bun:"def"`
		Key   bool   `bun:"key"`
	}
	// Only the parents' own indexes: a partition's index goes with its
	// parent's, and comes back with it.
	err := s.db.NewRaw(`SELECT i.indexrelid::regclass::text AS name, t.relname AS tbl,
			COALESCE(pg_get_constraintdef(c.oid), pg_get_indexdef(i.indexrelid)) AS def, c.oid IS NOT NULL AS key
		FROM pg_index i
		JOIN pg_class t ON t.oid = i.indrelid
		LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = t.oid AND c.contype = 'p'
		WHERE t.relnamespace = current_schema()::regnamespace AND t.relname IN (?)
		ORDER BY c.oid IS NULL, t.relname, 1`, bun.In(bulkTables)).Scan(ctx, &defs)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		if d.Key && !b.direct {
			continue // stored rows: inserts resolve conflicts on the keys
		}
		ix := deferredIndex{name: d.Name, table: d.Table, create: d.Def, key: d.Key}
		drop := `DROP INDEX IF EXISTS ` + d.Name
		if d.Key {
			ix.create = fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s %s", d.Table, d.Name, d.Def)
			drop = fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s", d.Table, d.Name)
		} else {
			// Postgres spells a partitioned table's index "ON ONLY", which
			// made an invalid index on the parent alone, none on its
			// partitions (every read then scanned them whole); without ONLY
			// the index is built on each partition and attached.
			ix.create = strings.Replace(ix.create, " ON ONLY ", " ON ", 1)
		}
		if _, err := s.db.ExecContext(ctx, drop); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", d.Name, err)
		}
		b.indexes = append(b.indexes, ix)
	}
	return b, nil
}

// Direct tells whether actions go straight into the tables by COPY.
func (b *BulkLoad) Direct() bool { return b.direct }

// SaveActions writes actions that are not stored yet, in one transaction.
// It is safe for concurrent use: each call takes its own connection.
func (b *BulkLoad) SaveActions(ctx context.Context, actions []chain.Action) error {
	return b.SaveTraces(ctx, actions, nil, nil)
}

// SaveTraces writes whole traces (their transactions and messages, the
// trace rows and their actions), as an import does, in one transaction;
// each trace's actions and transactions must come in one call. It is safe
// for concurrent use: each call takes its own connection.
func (b *BulkLoad) SaveTraces(ctx context.Context, actions []chain.Action, txs []*chain.Transaction, traces []*chain.Trace) error {
	if !b.direct {
		return b.s.SaveBatch(ctx, &Batch{Actions: actions, Transactions: txs, Traces: traces})
	}
	if len(actions) == 0 && len(txs) == 0 {
		return nil
	}
	s := b.s
	if err := s.ensurePartitions(ctx, batchSpans(&Batch{Actions: actions, Transactions: txs})); err != nil {
		return err
	}
	// Numbers taken and committed at once, not under a lock held to the
	// batch's commit as SaveBatch does: that lock is what serializes
	// writers, and a bulk load wants them side by side. As in SaveBatch,
	// the transactions (new: the tables were empty) come first.
	// The complete traces come last (traceseq.go).
	items, done := txOrder(txs), completeTraces(traces)
	last, err := takeSeqs(ctx, s.db, len(items)*TxSlots+len(actions)+len(done))
	if err != nil {
		return err
	}
	txSeqs, _ := numberTxs(items, nil, last-int64(len(items)*TxSlots+len(actions)+len(done)))
	seqs := make(map[string]int64, len(actions))
	numberNew(actions, seqs, last-int64(len(actions)+len(done)))
	traceSeqs, _ := numberTraces(done, nil, last-int64(len(done)))
	arows, links, txLinks := actionTableRows(actions, seqs)
	txRows, msgs := txTableRows(txs)
	for i := range txRows {
		if n, ok := txSeqs[txRows[i].Hash]; ok {
			txRows[i].Seq = &n
		}
	}
	traceRows := make([]traceRow, len(traces))
	for i, t := range traces {
		traceRows[i] = newTraceRow(t)
		if n, ok := traceSeqs[traceRows[i].ID]; ok {
			traceRows[i].Seq = &n
		}
	}
	var copies [3]staged
	if copies[0], err = encodeRows(s.db, arows); err != nil {
		return err
	}
	if copies[1], err = encodeRows(s.db, links); err != nil {
		return err
	}
	if copies[2], err = encodeRows(s.db, txLinks); err != nil {
		return err
	}
	// The chain's tables have integer columns, which binary COPY cannot
	// fill from the 8-byte integers it writes: they go through the staging
	// tables, whose INSERT ... SELECT converts (no conflict target: their
	// keys are dropped too).
	var chained []staged
	var script bytes.Buffer
	stageRows := func(c staged, insert string, err error) error {
		if err == nil {
			chained = append(chained, c)
			script.WriteString(insert + ";\n")
		}
		return err
	}
	if err := stageRows(stage(s.db, txRows, "CONFLICT DO NOTHING")); err != nil {
		return err
	}
	if err := stageRows(stage(s.db, msgs, "CONFLICT DO NOTHING")); err != nil {
		return err
	}
	if err := stageRows(stage(s.db, traceRows, "CONFLICT DO NOTHING")); err != nil {
		return err
	}
	conn, err := s.copyDB.Conn(ctx) // COPY needs pgdriver's own connection (cancel.go)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// Generated or re-read data: a crash loses the last batches, never
		// their consistency, and the load is simply run again.
		if _, err := tx.ExecContext(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return err
		}
		for _, c := range copies {
			query := fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", c.table.SQLName, columns(c.table))
			if _, err := pgdriver.CopyFrom(ctx, conn, bytes.NewReader(c.data), query); err != nil {
				return fmt.Errorf("copy %s: %w", c.table.Name, err)
			}
		}
		if len(txs) == 0 && len(traces) == 0 {
			return nil
		}
		return sendStaged(ctx, tx, conn, chained, script.Bytes())
	})
}

// Finish builds the dropped indexes again on up to workers connections at
// once (Postgres builds one index per backend), then vacuums and analyzes
// the tables.
func (b *BulkLoad) Finish(ctx context.Context, workers int) error {
	if !b.s.IsPostgres() {
		return nil
	}
	todo := make(chan deferredIndex, len(b.indexes))
	for _, ix := range b.indexes { // keys first: other builds on their table wait for them
		todo <- ix
	}
	close(todo)
	workers = max(1, workers)
	// An index of tens of millions of rows takes minutes: built without the
	// serving pool's statement bounds.
	err := b.s.maintenance(ctx, workers, func(db *bun.DB) error {
		var mu sync.Mutex
		var errs []error
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := buildIndexes(ctx, db, todo); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		// VACUUM as well as ANALYZE: rows copied in are not yet marked
		// visible to all in the visibility map, so index-only scans would
		// read the heap, and the first readers would write hint bits into
		// every page; autovacuum gets to tables filled this way late.
		_, err := db.ExecContext(ctx, "VACUUM (ANALYZE) "+strings.Join(bulkTables, ", "))
		return err
	})
	if err != nil {
		return err
	}
	b.indexes = nil
	return nil
}

// buildIndexes makes the indexes it takes from todo on one connection of
// db, with the memory to sort an index of millions of rows at once.
func buildIndexes(ctx context.Context, db *bun.DB, todo <-chan deferredIndex) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET maintenance_work_mem = '512MB'"); err != nil {
		return err
	}
	var errs []error
	for ix := range todo {
		if _, err := conn.ExecContext(ctx, ix.create); err != nil {
			errs = append(errs, fmt.Errorf("rebuild index %s: %w", ix.name, err))
		}
	}
	return errors.Join(errs...)
}
