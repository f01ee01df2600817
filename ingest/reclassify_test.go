package ingest_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// Reclassify rebuilds, from the stored transactions alone, exactly the
// actions the import wrote (for data that carries no indexer facts: raw
// blocks), after they were wiped; and it resumes from a trace id.
func TestReclassifyRebuildsActions(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importAll(t, st, files)
			want := dump(t, st)
			for _, table := range []string{"action_accounts", "action_transactions", "actions"} {
				if _, err := st.DB().ExecContext(ctx, "DELETE FROM "+table); err != nil {
					t.Fatal(err)
				}
			}
			var pages int
			var last string
			if err := ingest.Reclassify(ctx, st, "", func(_, _ int, id string) { pages++; last = id }); err != nil {
				t.Fatal(err)
			}
			if pages == 0 || last == "" {
				t.Fatal("no progress reported")
			}
			got := dump(t, st)
			for _, table := range tables {
				if !reflect.DeepEqual(want[table], got[table]) {
					t.Errorf("%s differs after reclassify: %d rows before, %d after", table, len(want[table]), len(got[table]))
				}
			}
			// Resuming after the last trace finds nothing left to do.
			n := -1
			if err := ingest.Reclassify(ctx, st, last, func(tr, _ int, _ string) { n = tr }); err != nil {
				t.Fatal(err)
			}
			if n != -1 {
				t.Errorf("resuming after the last trace reclassified %d traces", n)
			}
		})
	}
}
