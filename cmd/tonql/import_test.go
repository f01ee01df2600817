package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// runImportIn runs `tonql import` in-process on a fresh SQLite file.
func runImportIn(t *testing.T, db string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = run(context.Background(), append([]string{"import", "-database-url", "sqlite:" + db}, args...), e)
	return code, out.String(), errb.String()
}

// In a folder, a file known to hold no chain data (the fixtures' decoded
// config JSON) is skipped with a notice; a JSON file of no known format is
// an error naming it, like a damaged block, while the rest is imported.
func TestImportFolderOtherFiles(t *testing.T) {
	dir := t.TempDir()
	// Fixtures by link (they are never copied).
	link := func(rel, name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(testenv.Fixture(t, rel), p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link("blocks/block-2.bin", "block-2.bin")
	decoded := link("blocks/config_65466080.decoded.json", "config.decoded.json")
	db := filepath.Join(t.TempDir(), "tonql.db")

	code, stdout, stderr := runImportIn(t, db, dir)
	if code != 0 {
		t.Fatalf("folder import failed (%d): %s", code, stderr)
	}
	if !strings.Contains(stderr, "not imported") || !strings.Contains(stderr, decoded) || !strings.Contains(stderr, "decoded blockchain config") {
		t.Errorf("no notice naming the skipped file:\n%s", stderr)
	}
	if !strings.Contains(stdout, "imported 1 file (1 block)") {
		t.Errorf("summary: %s", stdout)
	}

	// Named explicitly, the same file is an error that names it.
	code, _, stderr = runImportIn(t, db, decoded)
	if code != 1 || !strings.Contains(stderr, decoded) {
		t.Errorf("explicit decoded config: code %d, stderr:\n%s", code, stderr)
	}

	// JSON of no known format fails the run, in a folder too, naming the
	// file; the block beside it is still imported.
	unknown := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(unknown, []byte(`{"config": {"param_20": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runImportIn(t, db, dir)
	if code != 1 || !strings.Contains(stderr, unknown+": unknown format") || !strings.Contains(stdout, "imported 1 file (1 block)") {
		t.Errorf("unknown JSON in a folder: code %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if err := os.Remove(unknown); err != nil {
		t.Fatal(err)
	}

	// A damaged file of a known kind fails the run even inside a folder.
	if err := os.WriteFile(filepath.Join(dir, "broken.bin"), []byte("not a block"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runImportIn(t, db, dir)
	if code != 1 || !strings.Contains(stderr, "broken.bin") {
		t.Errorf("damaged file in a folder: code %d, stderr:\n%s", code, stderr)
	}
}

// summaryCounts reads "transactions: N new, M already present" (and the
// same for actions) from an import's output.
func summaryCounts(t *testing.T, stdout, what string) (fresh, present int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + what + `: (\d+) new, (\d+) already present$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no %s line in:\n%s", what, stdout)
	}
	fresh, _ = strconv.Atoi(m[1])
	present, _ = strconv.Atoi(m[2])
	return fresh, present
}

// An import says what was new and what the database held already; the
// same files again are all already present, on both databases.
func TestImportReportsNewAndPresent(t *testing.T) {
	blocks := filepath.Join(testenv.FixturesDir(t), "blocks")
	traces := testenv.Fixture(t, "toncenter-traces/traces")
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			imp := func(args ...string) string {
				code, stdout, stderr := runCmd(map[string]string{"DATABASE_URL": db.URL}, append([]string{"import"}, args...)...)
				require.Equal(t, 0, code, stderr)
				return stdout
			}
			out := imp(blocks, traces)
			require.Contains(t, out, "imported 84 files (7 blocks, 77 toncenter traces)")
			txNew, txPresent := summaryCounts(t, out, "transactions")
			actNew, actPresent := summaryCounts(t, out, "actions")
			require.Zero(t, txPresent, out)
			require.Zero(t, actPresent, out)
			require.Positive(t, txNew)
			require.Positive(t, actNew)
			st := storetest.Open(t, db.URL)
			var stored int
			require.NoError(t, st.DB().NewRaw("SELECT count(*) FROM transactions").Scan(context.Background(), &stored))
			require.Equal(t, stored, txNew, "new transactions are the rows written")

			out = imp(blocks, traces)
			again, present := summaryCounts(t, out, "transactions")
			require.Zero(t, again, out)
			require.Equal(t, txNew, present, out)
			again, present = summaryCounts(t, out, "actions")
			require.Zero(t, again, out)
			require.Positive(t, present, out)

			// One block again and one new: apart.
			out = imp(filepath.Join(blocks, "block-2.bin"), testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
			txNew, txPresent = summaryCounts(t, out, "transactions")
			require.Equal(t, 269, txNew, out)
			require.Positive(t, txPresent, out)
		})
	}
}

// A folder holding a blockchain config BOC stores the config; a config of
// a block (a fee-replay file's) is newer and is the one fees use.
func TestImportConfigBOC(t *testing.T) {
	cfgPath := testenv.Fixture(t, "fee-replay/blockchain_config_mainnet.boc")
	want, err := os.ReadFile(cfgPath)
	require.NoError(t, err)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			vars := map[string]string{"DATABASE_URL": db.URL}
			code, stdout, stderr := runCmd(vars, "import", cfgPath)
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stdout, "imported 1 file (1 blockchain config)")
			require.Contains(t, stdout, "blockchain configs: 1 stored")
			st := storetest.Open(t, db.URL)
			cfg, err := st.Config(context.Background())
			require.NoError(t, err)
			require.NotNil(t, cfg)
			require.Equal(t, want, cfg.ConfigBOC)

			// The whole folder: the config, a transaction replay (skipped
			// with a notice) and the fee-replay block with its own config.
			code, stdout, stderr = runCmd(vars, "import", filepath.Dir(cfgPath))
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stdout, "imported 2 files (1 fee-replay file, 1 blockchain config)")
			require.Contains(t, stderr, "transaction_replay_regression.json: no chain data to import")
			cfg, err = st.Config(context.Background())
			require.NoError(t, err)
			require.Equal(t, uint32(66519406), cfg.McSeqno, "the block's config is the newer")
		})
	}
	// A BOC that is neither a block nor a config names the file.
	bad := filepath.Join(t.TempDir(), "cell.boc")
	require.NoError(t, os.WriteFile(bad, []byte("\xb5\xee\x9c\x72\x01\x01\x01\x01\x00\x03\x00\x00\x01\x80"), 0o644))
	code, _, stderr := runImportIn(t, filepath.Join(t.TempDir(), "x.db"), bad)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, bad+": ")
}

// Every action of an import's files is counted once, as new or as already
// present, however earlier imports cut the files: the counts are the
// difference of the stored action ids before and after each run (every run
// but the first covers all the files, so its actions are all the stored
// ones). Main said "0 new, 1584 already present" of 2,057 on a re-import:
// the actions of traces held incomplete were not counted, and a trace that
// grows over several files was counted by each.
func TestImportCountsEveryActionOnce(t *testing.T) {
	dir := testenv.FixturesDir(t)
	blocks := filepath.Join(dir, "blocks")
	traces := filepath.Join(dir, "toncenter-traces", "traces")
	replay := filepath.Join(dir, "fee-replay", "tvm_replay_fat_block_66519406.json")
	some, _ := filepath.Glob(filepath.Join(traces, "[0-9A-M]*.json"))
	require.NotEmpty(t, some)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			ids := func() map[string]bool {
				var list []string
				require.NoError(t, st.DB().NewRaw("SELECT action_id FROM actions").Scan(ctx, &list))
				out := map[string]bool{}
				for _, id := range list {
					out[id] = true
				}
				return out
			}
			for i, run := range [][]string{
				append([]string{filepath.Join(blocks, "block-1.bin"), filepath.Join(blocks, "block-2.bin")}, some...),
				{blocks, traces, replay},
				{blocks, traces, replay},
				{filepath.Join(blocks, "block-3.bin"), replay},
			} {
				before := ids()
				code, stdout, stderr := runCmd(map[string]string{"DATABASE_URL": db.URL}, append([]string{"import"}, run...)...)
				require.Equal(t, 0, code, stderr)
				after := ids()
				fresh, present := summaryCounts(t, stdout, "actions")
				wantFresh, wantPresent := 0, 0
				for id := range after {
					if before[id] {
						wantPresent++
					} else {
						wantFresh++
					}
				}
				if i == 3 { // a part of the files: only the new ones are known here
					require.Equal(t, 0, fresh, "run %d: %s", i, stdout)
					require.Positive(t, present, "run %d: %s", i, stdout)
					continue
				}
				if i == 0 {
					wantPresent = 0
				}
				require.Equal(t, wantFresh, fresh, "run %d: new actions: %s", i, stdout)
				require.Equal(t, wantPresent, present, "run %d: present actions: %s", i, stdout)
			}
		})
	}
}

// A file that keeps the import busy longer than the progress interval is
// named in a progress line with what is done with it (parsing or saving),
// instead of silence until it is done.
func TestImportShowsProgressOnALongFile(t *testing.T) {
	replay := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	db := filepath.Join(t.TempDir(), "tonql.db")
	var out, errb bytes.Buffer
	// An interval far below the file's parse and save (hundreds of
	// transactions and account states) stands for a file far longer than
	// the default's.
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, progressEvery: time.Microsecond}
	code := run(context.Background(), []string{"import", "-database-url", "sqlite:" + db, replay}, e)
	require.Equal(t, 0, code, errb.String())
	require.Regexp(t, `(?m)^\[0/1 files\] 0 transactions, 0 actions; (parsing|saving) `+regexp.QuoteMeta(replay)+` \(`, errb.String())
	require.Contains(t, errb.String(), "[1/1 files] 269 transactions")
}
