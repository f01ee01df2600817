package store

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
)

// openMigratedPostgres opens and migrates a new Postgres test database.
func openMigratedPostgres(t *testing.T) *Store {
	t.Helper()
	dsn := testenv.NewPostgresDatabase(t)
	if dsn == "" {
		t.Skip("a Postgres test (TEST_PG_DSN)")
	}
	s, err := Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	_, err = s.Migrate(context.Background())
	require.NoError(t, err)
	return s
}

// generated is a small synthetic data set in batches, as loadgen cuts it.
func generated(t *testing.T, n, batch int) [][]chain.Action {
	var out [][]chain.Action
	var cur []chain.Action
	require.NoError(t, synth.Generate(synth.Params{Seed: 7, Actions: n, Accounts: 300, HotAccounts: 2, HotActions: n / 10,
		StartUtime: 1_760_000_000}, func(a *chain.Action) error {
		cur = append(cur, *a)
		if len(cur) == batch {
			out, cur = append(out, cur), nil
		}
		return nil
	}))
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// indexDefs are the action tables' indexes and keys, partitions' included,
// with whether each is valid.
func indexDefs(t *testing.T, s *Store) []string {
	var out []string
	require.NoError(t, s.db.NewRaw(`SELECT c.relname || ': ' || pg_get_indexdef(i.indexrelid) || ' valid=' || i.indisvalid
			|| COALESCE(' ' || pg_get_constraintdef(k.oid), '')
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = c.oid
		WHERE c.relname LIKE 'action\_%' OR c.relname LIKE 'actions%' ORDER BY 1`).Scan(context.Background(), &out))
	return out
}

// parentIndexes are the indexes of the three partitioned tables themselves.
func parentIndexes(t *testing.T, s *Store) []string {
	var out []string
	for _, d := range indexDefs(t, s) {
		if strings.HasPrefix(d, "actions: ") || strings.HasPrefix(d, "action_accounts: ") || strings.HasPrefix(d, "action_transactions: ") {
			out = append(out, d)
		}
	}
	require.Len(t, out, 16) // actions_children since nested_actions
	return out
}

// tableRows are the three action tables' rows as JSON, seq left out.
func tableRows(t *testing.T, s *Store) []string {
	var out []string
	for _, q := range []string{
		`SELECT (to_jsonb(a) - 'seq')::text FROM actions a ORDER BY action_id`,
		`SELECT to_jsonb(a)::text FROM action_accounts a ORDER BY account, action_id`,
		`SELECT to_jsonb(a)::text FROM action_transactions a ORDER BY action_id, tx_hash`,
	} {
		var rows []string
		require.NoError(t, s.db.NewRaw(q).Scan(context.Background(), &rows))
		require.NotEmpty(t, rows, q)
		out = append(out, rows...)
	}
	return out
}

// A direct bulk load, from several goroutines at once, stores the very rows
// SaveBatch stores, gives every action its own seq, and ends with the same
// indexes and keys, valid, on every partition.
func TestBulkLoadStoresWhatSaveBatchStores(t *testing.T) {
	ctx := context.Background()
	batches := generated(t, 3000, 250)
	want, got := openMigratedPostgres(t), openMigratedPostgres(t)
	for _, b := range batches {
		require.NoError(t, want.SaveBatch(ctx, &Batch{Actions: b}))
	}
	indexesBefore := parentIndexes(t, got)

	bl, err := got.BeginBulkLoad(ctx)
	require.NoError(t, err)
	require.True(t, bl.Direct(), "the tables are empty")
	var left int
	require.NoError(t, got.db.NewRaw(`SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		WHERE c.relname IN ('actions', 'action_accounts', 'action_transactions')`).Scan(ctx, &left))
	require.Zero(t, left, "every index and key is dropped for the load")
	work := make(chan []chain.Action)
	var wg sync.WaitGroup
	errs := make(chan error, len(batches))
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				errs <- bl.SaveActions(ctx, b)
			}
		}()
	}
	for _, b := range batches {
		work <- b
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, bl.Finish(ctx, 2))

	require.Equal(t, indexDefs(t, want), indexDefs(t, got))
	require.Equal(t, indexesBefore, parentIndexes(t, got), "the same indexes as before the load")
	require.Equal(t, tableRows(t, want), tableRows(t, got))
	var distinct, total, top int
	require.NoError(t, got.db.NewRaw("SELECT count(DISTINCT seq), count(*), max(seq) FROM actions").Scan(ctx, &distinct, &total, &top))
	require.Equal(t, 3000, total)
	require.Equal(t, total, distinct, "every action has a seq of its own")
	last, err := got.LastActionSeq(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(top), last, "the counter is past every seq given")

	// And a page reads the same from both.
	f := ActionFilter{Account: synth.HotAccount(7, 0), Limit: 25}
	a, err := want.ListActions(ctx, f, BookOfValuesAndAccounts)
	require.NoError(t, err)
	b, err := got.ListActions(ctx, f, BookOfValuesAndAccounts)
	require.NoError(t, err)
	require.Len(t, b.Actions, 25)
	require.Equal(t, a, b)
}

// Into tables that hold rows, a bulk load keeps the primary keys and
// writes through SaveBatch: saving stored actions again changes nothing,
// and the secondary indexes come back.
func TestBulkLoadOnStoredRowsKeepsKeys(t *testing.T) {
	ctx := context.Background()
	batches := generated(t, 600, 200)
	s := openMigratedPostgres(t)
	require.NoError(t, s.SaveBatch(ctx, &Batch{Actions: batches[0]}))
	before, rows := indexDefs(t, s), tableRows(t, s)

	bl, err := s.BeginBulkLoad(ctx)
	require.NoError(t, err)
	require.False(t, bl.Direct())
	var keys []string
	require.NoError(t, s.db.NewRaw(`SELECT i.indexrelid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		WHERE c.relname IN ('actions', 'action_accounts', 'action_transactions') ORDER BY 1`).Scan(ctx, &keys))
	require.Equal(t, []string{"action_accounts_pkey", "action_transactions_pkey", "actions_pkey"}, keys, "only the keys stay")
	require.NoError(t, bl.SaveActions(ctx, batches[0]))
	require.Equal(t, rows, tableRows(t, s), "stored actions saved again change nothing")
	for _, b := range batches[1:] {
		require.NoError(t, bl.SaveActions(ctx, b))
	}
	require.NoError(t, bl.Finish(ctx, 2))
	require.Equal(t, before, indexDefs(t, s))
	var n int
	require.NoError(t, s.db.NewRaw("SELECT count(*) FROM actions").Scan(ctx, &n))
	require.Equal(t, 600, n)
}

// Two actions with one id in a direct load are caught when the keys come
// back, and the error names the key.
func TestBulkLoadReportsDuplicateActions(t *testing.T) {
	ctx := context.Background()
	batches := generated(t, 100, 100)
	s := openMigratedPostgres(t)
	bl, err := s.BeginBulkLoad(ctx)
	require.NoError(t, err)
	require.True(t, bl.Direct())
	require.NoError(t, bl.SaveActions(ctx, batches[0]))
	require.NoError(t, bl.SaveActions(ctx, batches[0]))
	err = bl.Finish(ctx, 1)
	require.ErrorContains(t, err, "actions_pkey")
}

// Maintenance statements outlive the serving pool's bounds: a statement
// longer than the driver's read timeout fails on the pool and completes on
// the maintenance handle (so a migration copying a large table finishes).
func TestMaintenanceStatementsAreUnbounded(t *testing.T) {
	t.Parallel()
	s := openMigratedPostgres(t)
	ctx := context.Background()
	_, err := s.db.ExecContext(ctx, "SELECT pg_sleep(10.5)")
	require.Error(t, err, "the serving pool drops a connection silent for 10 s")
	require.NoError(t, s.maintenance(ctx, 1, func(db *bun.DB) error {
		var timeout string
		if err := db.NewRaw("SHOW statement_timeout").Scan(ctx, &timeout); err != nil {
			return err
		}
		require.Equal(t, "0", timeout)
		_, err := db.ExecContext(ctx, "SELECT pg_sleep(10.5)")
		return err
	}))
}

// A direct load that never reached Finish (its process killed) leaves the
// tables without keys; a later bulk load refuses them, saying why.
func TestBulkLoadRefusesAnUnfinishedLoad(t *testing.T) {
	ctx := context.Background()
	s := openMigratedPostgres(t)
	bl, err := s.BeginBulkLoad(ctx)
	require.NoError(t, err)
	require.NoError(t, bl.SaveActions(ctx, generated(t, 50, 50)[0]))
	// No Finish: as if loadgen were killed here.
	_, err = s.BeginBulkLoad(ctx)
	require.ErrorContains(t, err, "0 of their 6 primary keys: an earlier bulk load did not finish")
}

// A direct bulk load of whole traces (loadgen's) stores the transactions,
// messages and trace rows SaveBatch stores, and their indexes come back.
func TestBulkLoadTracesStoresWhatSaveBatchStores(t *testing.T) {
	ctx := context.Background()
	var batches [][]chain.Action
	for _, b := range generated(t, 600, 600) { // one batch: every trace whole
		batches = append(batches, b)
	}
	want, got := openMigratedPostgres(t), openMigratedPostgres(t)
	chainIndexes := func(s *Store) []string {
		var out []string
		require.NoError(t, s.db.NewRaw(`SELECT c.relname || ': ' || pg_get_indexdef(i.indexrelid) || ' valid=' || i.indisvalid
			FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
			WHERE c.relname LIKE 'transactions%' OR c.relname IN ('messages', 'traces') ORDER BY 1`).Scan(ctx, &out))
		return out
	}
	chainRows := func(s *Store) []string {
		var out []string
		for _, q := range []string{
			`SELECT to_jsonb(t)::text FROM transactions t ORDER BY hash`,
			`SELECT to_jsonb(m)::text FROM messages m ORDER BY tx_hash, direction, seq`,
			`SELECT to_jsonb(t)::text FROM traces t ORDER BY id`,
		} {
			var rows []string
			require.NoError(t, s.db.NewRaw(q).Scan(ctx, &rows))
			require.NotEmpty(t, rows, q)
			out = append(out, rows...)
		}
		return out
	}
	for _, b := range batches {
		txs, traces := synth.Chain(b)
		require.NoError(t, want.SaveBatch(ctx, &Batch{Actions: b, Transactions: txs, Traces: traces}))
	}
	bl, err := got.BeginBulkLoad(ctx)
	require.NoError(t, err)
	require.True(t, bl.Direct())
	for _, b := range batches {
		txs, traces := synth.Chain(b)
		require.NoError(t, bl.SaveTraces(ctx, b, txs, traces))
	}
	require.NoError(t, bl.Finish(ctx, 2))
	require.Equal(t, chainIndexes(want), chainIndexes(got), "the chain tables' indexes come back, on every partition")
	require.Equal(t, chainRows(want), chainRows(got))
	require.Equal(t, tableRows(t, want), tableRows(t, got))

	// And a page of an account's traces reads the same from both.
	f := TraceFilter{Account: &batches[0][0].Accounts[0], Limit: 5, Desc: true}
	a, err := want.FindTraces(ctx, f)
	require.NoError(t, err)
	b, err := got.FindTraces(ctx, f)
	require.NoError(t, err)
	require.NotEmpty(t, b)
	require.NotEmpty(t, b[0].Transactions)
	require.Equal(t, a, b)
}
