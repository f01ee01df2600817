package follow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/follow"
	"github.com/tonql/tonql/internal/backoff"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// fixtureChain is the real mainnet blocks of the fixtures, served as a
// chain of masterchain blocks 1..8 (the fee-replay block last: it brings
// account states and the config).
func fixtureChain(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	sort.Strings(files)
	require.NotEmpty(t, files)
	return append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
}

var tables = []string{"transactions", "messages", "traces", "actions", "action_accounts",
	"action_transactions", "accounts", "chain_configs", "follow_cursor", "token_moves"}

// dump renders every table the follower writes as sorted JSON rows. It
// scans through database/sql: bun's map scanning trips over SQLite columns
// that hold both NULL and BLOB.
func dump(t *testing.T, st *store.Store) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, name := range tables {
		rows, err := st.DB().DB.QueryContext(context.Background(), "SELECT * FROM "+name)
		require.NoError(t, err, name)
		cols, err := rows.Columns()
		require.NoError(t, err)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			row := map[string]any{}
			for i, c := range cols {
				row[c] = vals[i]
			}
			b, _ := json.Marshal(row)
			out[name] = append(out[name], string(b))
		}
		require.NoError(t, rows.Err())
		rows.Close()
		sort.Strings(out[name])
	}
	return out
}

func requireSameDump(t *testing.T, want, got map[string][]string) {
	t.Helper()
	for _, name := range tables {
		require.Equal(t, len(want[name]), len(got[name]), "rows of %s", name)
		require.Equal(t, strings.Join(want[name], "\n"), strings.Join(got[name], "\n"), "table %s", name)
	}
}

func openStore(t *testing.T, url string) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	require.NoError(t, err)
	_, err = st.Migrate(ctx)
	require.NoError(t, err)
	return st
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func options(maxRetries int) follow.Options {
	return follow.Options{From: 1, MaxRetries: maxRetries, Logger: quiet(),
		Backoff: backoff.Policy{Base: time.Millisecond, Max: 2 * time.Millisecond}, Poll: time.Millisecond}
}

// crashAt makes the database refuse to move the cursor to seqno: the
// transaction of that block fails after its data was written, as a crash
// or a lost connection at the last moment would.
func crashAt(t *testing.T, st *store.Store, seqno uint32) (remove func()) {
	t.Helper()
	ctx := context.Background()
	var stmts, undo []string
	if st.IsPostgres() {
		stmts = []string{
			fmt.Sprintf(`CREATE FUNCTION test_crash() RETURNS trigger AS $$ BEGIN IF NEW.seqno = %d THEN RAISE EXCEPTION 'simulated crash'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`, seqno),
			`CREATE TRIGGER test_crash BEFORE INSERT OR UPDATE ON follow_cursor FOR EACH ROW EXECUTE FUNCTION test_crash()`,
		}
		undo = []string{`DROP TRIGGER test_crash ON follow_cursor`, `DROP FUNCTION test_crash()`}
	} else {
		for _, op := range []string{"INSERT", "UPDATE"} {
			stmts = append(stmts, fmt.Sprintf(`CREATE TRIGGER test_crash_%s BEFORE %s ON follow_cursor WHEN NEW.seqno = %d BEGIN SELECT RAISE(ABORT, 'simulated crash'); END`, op, op, seqno))
			undo = append(undo, "DROP TRIGGER test_crash_"+op)
		}
	}
	for _, s := range stmts {
		_, err := st.DB().ExecContext(ctx, s)
		require.NoError(t, err)
	}
	return func() {
		for _, s := range undo {
			_, err := st.DB().ExecContext(ctx, s)
			require.NoError(t, err)
		}
	}
}

// beforeBlock runs hook before the source serves a block.
type beforeBlock struct {
	follow.BlockSource
	hook func(seqno uint32, call int) error
	n    map[uint32]int
}

func (s *beforeBlock) Block(ctx context.Context, seqno uint32) (*follow.Block, error) {
	if s.n == nil {
		s.n = map[uint32]int{}
	}
	s.n[seqno]++
	if err := s.hook(seqno, s.n[seqno]); err != nil {
		return nil, err
	}
	return s.BlockSource.Block(ctx, seqno)
}

func TestCrashAndResumeMatchUninterruptedRun(t *testing.T) {
	files := fixtureChain(t)
	const crash = 4 // block 4 fails after its data was written
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			dbs := testenv.Databases(t)
			if db.Name == "postgres" {
				dbs = dbs[1:]
			}
			// The reference: one uninterrupted run on its own database.
			ref := openStore(t, db.URL)
			defer ref.Close()
			f := follow.New(ref, follow.NewFilesSource(files), options(0))
			require.NoError(t, f.Run(ctx))
			want := dump(t, ref)
			require.Len(t, want["follow_cursor"], 1)
			require.Contains(t, want["follow_cursor"][0], `"seqno":8`)
			require.Greater(t, len(want["transactions"]), 1000)
			require.NotEmpty(t, want["actions"])
			stats := f.Stats()
			require.EqualValues(t, 8, stats.Cursor)
			require.EqualValues(t, 8, stats.Blocks)
			require.Zero(t, stats.LagBlocks())

			// A process dies at block 4: it gives up (as --max-retries 1
			// would) with blocks 1..3 stored and nothing of block 4.
			crashed := openStore(t, dbs[0].URL)
			remove := crashAt(t, crashed, crash)
			err := follow.New(crashed, follow.NewFilesSource(files), options(1)).Run(ctx)
			require.ErrorContains(t, err, "giving up after 1 failed attempts")
			require.ErrorContains(t, err, "masterchain block 4")
			cur, err := crashed.FollowCursor(ctx, follow.DefaultName)
			require.NoError(t, err)
			require.EqualValues(t, 3, cur.Seqno)
			partial := dump(t, crashed)
			require.Less(t, len(partial["transactions"]), len(want["transactions"]))
			remove()
			require.NoError(t, crashed.Close())

			// A new process resumes from the cursor (From is ignored now).
			resumed := openStore(t, dbs[0].URL)
			defer resumed.Close()
			opt := options(0)
			opt.From = 7
			f = follow.New(resumed, follow.NewFilesSource(files), opt)
			require.NoError(t, f.Run(ctx))
			require.EqualValues(t, 5, f.Stats().Blocks, "blocks 4..8")
			requireSameDump(t, want, dump(t, resumed))
		})
	}
}

// In one process: the save of a block fails, the follower backs off,
// rebuilds its trace assembler from the store and retries; a fetch fails
// twice. The result equals the uninterrupted run.
func TestRetryInProcessMatchesUninterruptedRun(t *testing.T) {
	files := fixtureChain(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			ref := openStore(t, db.URL)
			defer ref.Close()
			require.NoError(t, follow.New(ref, follow.NewFilesSource(files), options(0)).Run(ctx))
			want := dump(t, ref)

			url := testenv.Databases(t)[0].URL
			if db.Name == "postgres" {
				url = testenv.Databases(t)[1].URL
			}
			st := openStore(t, url)
			defer st.Close()
			remove := crashAt(t, st, 6)
			var removed atomic.Bool
			src := &beforeBlock{BlockSource: follow.NewFilesSource(files), hook: func(seqno uint32, call int) error {
				switch {
				case seqno == 3 && call <= 2:
					return errors.New("lite server went away")
				case seqno == 6 && call == 2 && !removed.Swap(true):
					remove() // the database is healthy again
				}
				return nil
			}}
			f := follow.New(st, src, options(5))
			require.NoError(t, f.Run(ctx))
			stats := f.Stats()
			require.EqualValues(t, 3, stats.Failures)
			require.Zero(t, stats.ConsecutiveFailures)
			require.Empty(t, stats.LastError)
			require.True(t, removed.Load())
			requireSameDump(t, want, dump(t, st))
		})
	}
}

func TestSecondFollowerIsRefused(t *testing.T) {
	files := fixtureChain(t)[:3]
	st := openStore(t, testenv.Databases(t)[0].URL)
	defer st.Close()
	ctx := context.Background()
	require.NoError(t, follow.New(st, follow.NewFilesSource(files[:2]), options(0)).Run(ctx))
	// A writer that read the cursor before the first one moved it must not
	// write its block: MoveCursor checks where the cursor was.
	b := &store.Batch{Extra: store.MoveCursor(follow.DefaultName, &store.Cursor{Seqno: 1}, store.Cursor{Seqno: 2})}
	require.ErrorIs(t, st.SaveBatch(ctx, b), store.ErrCursorMoved)
	b = &store.Batch{Extra: store.MoveCursor(follow.DefaultName, nil, store.Cursor{Seqno: 1})}
	require.ErrorIs(t, st.SaveBatch(ctx, b), store.ErrCursorMoved)
}
