package e2e

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// TestImportKilledKeepsAnalyticsConsistent: `tonql import` of every
// fixture killed with SIGKILL at several points leaves the token analytics
// exactly what a rebuild makes from the actions that were committed (the
// rollups commit with the actions or not at all); a second import then
// completes them.
func TestImportKilledKeepsAnalyticsConsistent(t *testing.T) {
	dsn := testenv.NewPostgresDatabase(t)
	if dsn == "" {
		t.Skip("a Postgres test (TEST_PG_DSN)")
	}
	bin := buildTonql(t, t.TempDir())
	files := fixtureFiles(t)
	ctx := context.Background()
	for i, delay := range []time.Duration{300 * time.Millisecond, 900 * time.Millisecond, 1800 * time.Millisecond} {
		url := dsn
		if i > 0 {
			url = testenv.NewPostgresDatabase(t)
		}
		st := storetest.Open(t, url)
		cmd := exec.Command(bin, append([]string{"import", "-database-url", url}, files...)...)
		require.NoError(t, cmd.Start())
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		var acts int
		require.NoError(t, st.DB().NewSelect().TableExpr("actions").ColumnExpr("count(*)").Scan(ctx, &acts))
		t.Logf("killed after %s: %d actions committed", delay, acts)
		kept := storetest.AnalyticsRows(t, st)
		_, _, err := st.RebuildAnalytics(ctx)
		require.NoError(t, err)
		require.Equal(t, kept, storetest.AnalyticsRows(t, st), "killed after %s", delay)

		out, err := exec.Command(bin, append([]string{"import", "-database-url", url}, files...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		kept = storetest.AnalyticsRows(t, st)
		require.NotEmpty(t, kept["analytics_candles"])
		_, _, err = st.RebuildAnalytics(ctx)
		require.NoError(t, err)
		require.Equal(t, kept, storetest.AnalyticsRows(t, st), "imported again after the kill")
	}
}
