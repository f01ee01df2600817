package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

func fixtureFiles(t testing.TB) []string {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	return append(files, traces...)
}

var tables = []string{"transactions", "messages", "traces", "actions", "action_accounts", "action_transactions", "accounts", "account_interfaces", "chain_configs", "dns_names", "blocks"}

// dump renders the chain tables as sorted JSON rows, without seqs (a
// fresh write gets fresh ones: store/seq.go).
func dump(t *testing.T, st *store.Store) map[string][]string {
	return dumpTables(t, st, tables, false)
}

// dumpAll renders every table of the schema (not the migration
// bookkeeping) as sorted JSON rows, seqs included.
func dumpAll(t *testing.T, st *store.Store) map[string][]string {
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
	if st.IsPostgres() {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
	}
	rows, err := st.DB().QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(n, "bun_migration") {
			names = append(names, n)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	return dumpTables(t, st, names, true)
}

func dumpTables(t *testing.T, st *store.Store, names []string, seqs bool) map[string][]string {
	out := map[string][]string{}
	for _, name := range names {
		rows, err := st.DB().QueryContext(context.Background(), "SELECT * FROM "+name)
		if err != nil {
			t.Fatalf("dump %s: %v", name, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, c := range cols {
				if c == "seq" && !seqs {
					vals[i] = nil
				}
			}
			b, _ := json.Marshal(vals)
			out[name] = append(out[name], string(b))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(out[name])
	}
	return out
}

func importAll(t testing.TB, st *store.Store, files []string) int {
	ctx := context.Background()
	im := ingest.New(st)
	if _, err := im.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := im.ImportFiles(ctx, files, func(path string, s ingest.Stats, err error) {
		if err != nil {
			t.Fatal(err)
		}
		n += s.Transactions
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func openMigrated(t testing.TB, url string) *store.Store {
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestImportTwiceIsIdentical(t *testing.T) {
	files := fixtureFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := openMigrated(t, db.URL)
			start := time.Now()
			n := importAll(t, st, files)
			t.Logf("%s: first import %d tx in %v (%.0f tx/s)", db.Name, n, time.Since(start), float64(n)/time.Since(start).Seconds())
			first := dump(t, st)
			if len(first["transactions"]) < 1000 || len(first["actions"]) == 0 || len(first["accounts"]) != 234 {
				t.Fatalf("too little imported: %d tx, %d actions, %d accounts", len(first["transactions"]), len(first["actions"]), len(first["accounts"]))
			}
			importAll(t, st, files)
			second := dump(t, st)
			for _, name := range tables {
				if strings.Join(first[name], "\n") != strings.Join(second[name], "\n") {
					t.Errorf("table %s differs after the second import (%d vs %d rows)", name, len(first[name]), len(second[name]))
				}
			}
		})
	}
}

func TestMalformedFileNamesFileAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"broken.bin":  "not a boc",
		"trace.json":  `{"trace": {"trace_id": "x"}, "transactions": [{}]}`,
		"other.json":  `{"hello": 1}`,
		"replay.json": `{"block_boc_base64": "AAAA"}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ingest.ParseFile(p)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: want an error naming the file, got %v", name, err)
		}
	}
}

// BenchmarkImport measures transactions imported per second (parse,
// assemble, classify, write) from every fixture: "fresh" into an empty
// database, the usual case; "again" re-imports into a database that holds
// it all, where every row conflicts.
func BenchmarkImport(b *testing.B) {
	files := fixtureFiles(b)
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name+"/fresh", func(b *testing.B) {
			total := 0
			for range b.N {
				b.StopTimer()
				st := openMigrated(b, databaseNamed(b, name).URL)
				b.StartTimer()
				total += importAll(b, st, files)
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "tx/s")
		})
		b.Run(name+"/again", func(b *testing.B) {
			st := openMigrated(b, databaseNamed(b, name).URL)
			importAll(b, st, files)
			b.ResetTimer()
			total := 0
			for range b.N {
				total += importAll(b, st, files)
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "tx/s")
		})
	}
}

// databaseNamed is a fresh database of one kind, or a skip when that kind
// is not available.
func databaseNamed(b *testing.B, name string) testenv.Database {
	for _, db := range testenv.Databases(b) {
		if db.Name == name {
			return db
		}
	}
	b.Skip(name + " not available")
	return testenv.Database{}
}
