package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/migrate"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store/migrations"
)

// The nested_actions migration on a database with data: the rows written
// before it are top-level actions (empty parent and ancestors in both
// tables) and every filter shape answers as before it, with the zero
// NestedRule and with one that shows nested actions; rolled back, the
// columns go and the data stays; migrated again, the same answers.
func TestNestedActionsMigration(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, db.URL)
			require.NoError(t, err)
			defer s.Close()
			all := migrations.New().Sorted()
			at := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.Contains(m.Comment, "nested_actions") })
			require.GreaterOrEqual(t, at, 0)
			// Later migrations run (and roll back) with it, in one group.
			var group []string
			for _, m := range all[at:] {
				group = append(group, m.Name+"_"+m.Comment)
			}
			before := migrate.NewMigrations()
			for _, m := range all[:at] {
				before.Add(m)
			}
			old := migrate.NewMigrator(s.db, before)
			require.NoError(t, old.Init(ctx))
			_, err = old.Migrate(ctx)
			require.NoError(t, err)
			// The store writes the new columns: the data is written with
			// them, then they are taken away by the migration's own
			// rollback, leaving the rows as a database before it held them.
			_, err = s.Migrate(ctx)
			require.NoError(t, err)
			require.NoError(t, s.detectPartitions(ctx))
			b := partitionedBatch(t, 7*migrations.LtSpan)
			require.NoError(t, s.SaveBatch(ctx, b))
			fs := partitionFilters(t, s, b)
			shown := map[string]ActionFilter{}
			for name, f := range fs {
				f.Nested = NestedRule{Show: true, HiddenUnder: []string{"NftPurchase"}}
				shown[name+" (nested shown)"] = f
			}
			want, wantShown, counts := answers(t, s, fs), answers(t, s, shown), tableCounts(t, s)
			require.Equal(t, want, func() map[string]string { // nothing nested: the rules agree
				out := map[string]string{}
				for name, a := range wantShown {
					out[strings.TrimSuffix(name, " (nested shown)")] = a
				}
				return out
			}())
			_, err = migrate.NewMigrator(s.db, migrations.New()).Rollback(ctx)
			require.NoError(t, err)
			_, err = s.db.NewRaw("SELECT count(*) FROM actions WHERE ancestors = ''").Exec(ctx)
			require.Error(t, err, "rolled back: the column is gone")
			require.Equal(t, counts, tableCounts(t, s), "rolled back: the rows stay")

			applied, err := s.Migrate(ctx)
			require.NoError(t, err)
			require.Equal(t, group, applied)
			require.Equal(t, counts, tableCounts(t, s))
			var nested int
			require.NoError(t, s.db.NewRaw(`SELECT (SELECT count(*) FROM actions WHERE parent_action_id <> '' OR ancestors <> '')
				+ (SELECT count(*) FROM action_accounts WHERE ancestors <> '')`).Scan(ctx, &nested))
			require.Zero(t, nested)
			got, gotShown := answers(t, s, fs), answers(t, s, shown)
			for name := range want {
				require.Equal(t, want[name], got[name], name)
			}
			for name := range wantShown {
				require.Equal(t, wantShown[name], gotShown[name], name)
			}
		})
	}
}
