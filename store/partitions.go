package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store/migrations"
)

// On Postgres the tables that grow with the chain are partitioned by
// range of logical time (migration 20261128000007, migrations.LtSpan per
// partition): a page of actions between two lts, or after a cursor, reads
// only the partitions that hold its range, and old partitions can be
// detached and dropped whole. A unique key of a partitioned table must hold
// the partition key, so the conflict targets of the writes differ from
// SQLite's (conflictTarget); the extra column changes nothing, as an
// action's end_lt is the highest lt of the transactions its id is hashed
// from, and a transaction's lt is part of what its hash covers.

// uniqueKeys are the conflict targets of the partitioned tables: plain,
// and with the partition key.
var uniqueKeys = map[string][2]string{
	"transactions":        {"hash", "hash, lt"},
	"actions":             {"action_id", "action_id, end_lt"},
	"action_accounts":     {"account, action_id", "account, action_id, end_lt"},
	"action_transactions": {"action_id, tx_hash", "action_id, tx_hash, tx_lt"},
}

// conflictTarget is "CONFLICT (<table's unique key>)" for this database.
func conflictTarget(partitioned bool, table string) string {
	k, ok := uniqueKeys[table]
	if !ok {
		panic("store: no unique key known for " + table)
	}
	if partitioned {
		return "CONFLICT (" + k[1] + ")"
	}
	return "CONFLICT (" + k[0] + ")"
}

// detectPartitions reads whether the tables are partitioned (on Postgres
// once the migration ran; a database migrated back is not).
func (s *Store) detectPartitions(ctx context.Context) error {
	if !s.IsPostgres() {
		s.partitioned.Store(false)
		return nil
	}
	var n int
	if err := s.db.NewRaw("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = to_regclass('actions')").
		Scan(ctx, &n); err != nil {
		return fmt.Errorf("read partitioning: %w", err)
	}
	s.partitioned.Store(n > 0)
	s.mu.Lock()
	s.partitionsMade = map[int64]bool{}
	s.mu.Unlock()
	return nil
}

// partitioningChanged reads the partitioning again and tells whether it
// differs from what the store assumed.
func (s *Store) partitioningChanged(ctx context.Context) bool {
	was := s.partitioned.Load()
	if !s.IsPostgres() || s.detectPartitions(ctx) != nil {
		return false
	}
	return s.partitioned.Load() != was
}

// Partitioned tells whether the chain's tables are partitioned by lt.
func (s *Store) Partitioned() bool { return s.partitioned.Load() }

func spanStart(lt uint64) int64 { return int64(lt) / migrations.LtSpan * migrations.LtSpan }

// batchSpans lists the starts of the lt spans a batch writes rows into,
// and the span after its newest: partitions are made a span ahead, so the
// partition a writer reaches next exists before any row needs it.
func batchSpans(b *Batch) []int64 {
	set := map[int64]bool{}
	var hi uint64
	add := func(lt uint64) {
		set[spanStart(lt)] = true
		hi = max(hi, lt)
	}
	for _, t := range b.Transactions {
		add(t.Lt)
	}
	for i := range b.Actions {
		a := &b.Actions[i]
		add(a.EndLt)
		for _, lt := range a.TxLts {
			add(lt)
		}
	}
	if len(set) == 0 {
		return nil
	}
	set[spanStart(hi)+migrations.LtSpan] = true
	out := make([]int64, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// partitionLockKey is the advisory lock under which partitions are made,
// so two writers making the same one wait for each other instead of
// failing on the catalog's unique index.
var partitionLockKey = func() int64 {
	h := fnv.New64a()
	h.Write([]byte("tonql-partitions"))
	return int64(h.Sum64())
}()

// ensurePartitions makes the partitions of every table for the spans
// starting at starts, unless this process made or saw them already. It
// runs in a transaction of its own, before the batch's, and attaches each
// partition (migrations.AddPartitionSQL), which neither waits for nor
// blocks the readers and writers of the table.
func (s *Store) ensurePartitions(ctx context.Context, starts []int64) error {
	if !s.partitioned.Load() || len(starts) == 0 {
		return nil
	}
	var need []int64
	s.mu.Lock()
	for _, st := range starts {
		if !s.partitionsMade[st] {
			need = append(need, st)
		}
	}
	s.mu.Unlock()
	if len(need) == 0 {
		return nil
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", partitionLockKey); err != nil {
			return err
		}
		// Attaching conflicts only with other DDL and manual VACUUM or
		// ANALYZE of the parent; should one run long, fail the batch
		// rather than wait behind it.
		if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '5s'"); err != nil {
			return err
		}
		for _, st := range need {
			for _, t := range migrations.PartitionedTables {
				name := migrations.PartitionName(t, st)
				var attached bool
				if err := tx.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(?) AND inhparent = to_regclass(?))",
					name, t.Name).Scan(ctx, &attached); err != nil {
					return err
				}
				if attached {
					continue
				}
				// A table of that name that is not attached is a detached
				// partition: creating fails, and so does the batch, rather
				// than its rows going to the DEFAULT partition.
				for _, q := range migrations.AddPartitionSQL(t, st) {
					if _, err := tx.ExecContext(ctx, q); err != nil {
						return fmt.Errorf("create partition %s (a detached partition of that range must be attached again or dropped): %w", name, err)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return err // SaveBatch tells unavailability apart
	}
	s.mu.Lock()
	for _, st := range need {
		s.partitionsMade[st] = true
	}
	s.mu.Unlock()
	return nil
}

// ensureHeadPartitions makes the partitions of the newest stored data's
// span and the next, so a follower starting on a migrated database writes
// into partitions that exist (SaveBatch makes further ones as it goes).
func (s *Store) ensureHeadPartitions(ctx context.Context) error {
	if !s.partitioned.Load() {
		return nil
	}
	h, err := s.Head(ctx)
	if err != nil || h.Lt == 0 {
		return err
	}
	st := spanStart(h.Lt)
	return s.ensurePartitions(ctx, []int64{st, st + migrations.LtSpan})
}

// Partition is one attached partition of a partitioned table.
type Partition struct {
	Table    string // the parent
	Name     string
	StartLt  uint64 // inclusive
	EndLt    uint64 // exclusive
	Estimate int64  // rows, as the statistics last counted them (-1: never)
}

// Partitions lists the lt partitions of every partitioned table, oldest
// first (the DEFAULT partitions, which should stay empty, are not listed).
func (s *Store) Partitions(ctx context.Context) ([]Partition, error) {
	if !s.partitioned.Load() {
		return nil, nil
	}
	var out []Partition
	for _, t := range migrations.PartitionedTables {
		rows, err := s.db.QueryContext(ctx, `SELECT c.relname, c.reltuples::bigint FROM pg_inherits i
			JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass(?) ORDER BY c.relname`, t.Name)
		if err != nil {
			return nil, unavailable(err)
		}
		for rows.Next() {
			var p Partition
			if err := rows.Scan(&p.Name, &p.Estimate); err != nil {
				rows.Close()
				return nil, unavailable(err)
			}
			start, err := strconv.ParseInt(strings.TrimPrefix(p.Name, t.Name+"_p"), 10, 64)
			if err != nil || !strings.HasPrefix(p.Name, t.Name+"_p") {
				continue // the DEFAULT partition, or one an operator attached by hand
			}
			p.Table, p.StartLt, p.EndLt = t.Name, uint64(start), uint64(start+migrations.LtSpan)
			out = append(out, p)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, unavailable(err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartLt < out[j].StartLt })
	return out, nil
}

// PartitionsEndingBy lists the lt partitions DetachPartitionsBefore(lt)
// detaches: every one whose whole range lies below lt. An lt past the
// newest stored transaction is refused: it would take the span being
// written.
func (s *Store) PartitionsEndingBy(ctx context.Context, lt uint64) ([]Partition, error) {
	if !s.partitioned.Load() {
		return nil, fmt.Errorf("the tables are not partitioned (SQLite, or Postgres before migration 20261128000007)")
	}
	head, err := s.Head(ctx)
	if err != nil {
		return nil, err
	}
	if head.Lt > 0 && lt > head.Lt {
		return nil, fmt.Errorf("lt %d is past the newest stored transaction (lt %d): that would detach the span being written; give an lt at or below %d",
			lt, head.Lt, head.Lt)
	}
	parts, err := s.Partitions(ctx)
	if err != nil {
		return nil, err
	}
	out := parts[:0]
	for _, p := range parts {
		if p.EndLt <= lt {
			out = append(out, p)
		}
	}
	return out, nil
}

// DetachPartitionsBefore detaches every lt partition whose whole range
// lies below lt, of every partitioned table, and returns their names. The
// rows leave the API at once (actions, their links and transactions
// together, as they share bounds); the detached tables stay until an
// operator drops or archives them (docs/OPERATIONS.md). Traces and
// messages of those transactions stay.
func (s *Store) DetachPartitionsBefore(ctx context.Context, lt uint64) ([]string, error) {
	parts, err := s.PartitionsEndingBy(ctx, lt)
	if err != nil {
		return nil, err
	}
	var names []string
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// DETACH locks the parent against every reader: behind a long
		// query it would wait, and the API's queries would queue behind
		// it. Give up instead, detaching nothing; the operator retries.
		if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '5s'"); err != nil {
			return err
		}
		for _, p := range parts {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE "+p.Table+" DETACH PARTITION "+p.Name); err != nil {
				var pgErr pgdriver.Error
				if errors.As(err, &pgErr) && pgErr.Field('C') == "55P03" { // lock_not_available
					return apperr.New(apperr.Timeout, "detach %s: queries held %s for 5 s (lock timeout); nothing was detached, try again", p.Name, p.Table)
				}
				return fmt.Errorf("detach %s: %w", p.Name, err)
			}
			names = append(names, p.Name)
		}
		return nil
	})
	var ours *apperr.Error // the lock timeout, said already
	if errors.As(err, &ours) {
		return nil, err
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return names, nil
}

// ltRange is the lowest and highest end_lt of actions (not empty).
func ltRange(actions []chain.Action) (lo, hi int64) {
	lo, hi = int64(actions[0].EndLt), int64(actions[0].EndLt)
	for i := range actions {
		lo, hi = min(lo, int64(actions[i].EndLt)), max(hi, int64(actions[i].EndLt))
	}
	return lo, hi
}
