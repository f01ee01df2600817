package webhooks

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// fastForward, alone: with no hook the cursor goes to the newest action
// (the dispatcher then replays nothing); with a hook, to its start and no
// further; it never moves the cursor back.
func TestFastForwardStopsAtTheOldestHook(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	require.NotEmpty(t, files)
	sort.Strings(files)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importAll := func(fs []string) {
				require.NoError(t, ingest.New(st).ImportFiles(ctx, fs, func(p string, _ ingest.Stats, err error) { require.NoError(t, err, p) }))
			}
			cursor := func() (c int64) {
				require.NoError(t, st.DB().NewRaw("SELECT cursor FROM webhook_state WHERE id = 1").Scan(ctx, &c))
				return c
			}
			s := New(Options{Store: st, MaxHooksPerKey: 10, ExemptAddrs: []string{"127.0.0.1:9"}})
			importAll(files[:2])
			first, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Positive(t, first)
			require.NoError(t, s.fastForward(ctx))
			require.Equal(t, int64(first), cursor())

			_, err = s.Create(ctx, "key1", Input{URL: "http://127.0.0.1:9/hook", Addresses: []string{"0:0000000000000000000000000000000000000000000000000000000000000000"}})
			require.NoError(t, err)
			importAll(files[2:])
			last, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Greater(t, last, first)
			require.NoError(t, s.fastForward(ctx))
			require.Equal(t, int64(first), cursor(), "not past the hook's start")

			_, err = st.DB().ExecContext(ctx, "UPDATE webhook_state SET cursor = ? WHERE id = 1", int64(last))
			require.NoError(t, err)
			require.NoError(t, s.fastForward(ctx))
			require.Equal(t, int64(last), cursor(), "never back")
		})
	}
}
