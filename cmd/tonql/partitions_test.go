package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// `tonql partitions` lists the lt partitions of a Postgres database that
// holds real traces, and `detach -before LT` takes the spans ending at or
// below LT out of all four tables: a dry run changes nothing, the detach
// removes exactly those spans' actions from the tables, and a bound past
// the newest transaction, which would detach the span being written, is
// refused.
func TestPartitionsCommand(t *testing.T) {
	url := testenv.NewPostgresDatabase(t)
	if url == "" {
		t.Skip("partitions exist on Postgres only")
	}
	vars := map[string]string{"DATABASE_URL": url}
	code, _, stderr := runCmd(vars, "import", testenv.Fixture(t, "toncenter-traces/traces"))
	require.Equal(t, 0, code, stderr)
	st := storetest.Open(t, url)
	ctx := context.Background()
	count := func(below int64) (all, old int) {
		require.NoError(t, st.DB().NewRaw("SELECT count(*), count(*) FILTER (WHERE end_lt < ?) FROM actions", below).
			Scan(ctx, &all, &old))
		return all, old
	}
	parts, err := st.Partitions(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, parts)

	code, stdout, stderr := runCmd(vars, "partitions")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "TABLE")
	for _, p := range parts {
		require.Contains(t, stdout, p.Name)
	}

	// The oldest span that holds actions, and the bound at its end.
	var oldest int64
	require.NoError(t, st.DB().NewRaw("SELECT min(end_lt) FROM actions").Scan(ctx, &oldest))
	var bound uint64
	for _, p := range parts {
		if p.StartLt <= uint64(oldest) && uint64(oldest) < p.EndLt {
			bound = p.EndLt
		}
	}
	require.NotZero(t, bound)
	allBefore, oldBefore := count(int64(bound))
	require.Positive(t, oldBefore)
	require.Greater(t, allBefore, oldBefore, "the fixtures span more than one partition")
	before := strconv.FormatUint(bound, 10)

	code, stdout, stderr = runCmd(vars, "partitions", "detach", "-before", before, "-dry-run")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "would detach")
	all, old := count(int64(bound))
	require.Equal(t, [2]int{allBefore, oldBefore}, [2]int{all, old}, "a dry run changes nothing")

	// Behind a reader that holds the table, the detach gives up (after
	// its lock timeout) rather than queue every query behind it, and
	// detaches nothing.
	conn, err := st.DB().Conn(ctx)
	require.NoError(t, err)
	reader, err := conn.BeginTx(ctx, nil)
	require.NoError(t, err)
	var n int
	require.NoError(t, reader.QueryRowContext(ctx, "SELECT count(*) FROM actions").Scan(&n))
	// (Were there no lock timeout, the reader lets go after 30 s, the
	// detach then succeeds and the test fails rather than hangs.)
	release := time.AfterFunc(30*time.Second, func() { _ = reader.Rollback() })
	code, _, stderr = runCmd(vars, "partitions", "detach", "-before", before)
	release.Stop()
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "tonql partitions: detach actions_p")
	require.Contains(t, stderr, "(lock timeout); nothing was detached, try again")
	require.NoError(t, reader.Rollback())
	require.NoError(t, conn.Close())
	all, old = count(int64(bound))
	require.Equal(t, [2]int{allBefore, oldBefore}, [2]int{all, old}, "nothing detached")

	code, stdout, stderr = runCmd(vars, "partitions", "detach", "-before", before)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "DROP TABLE ")
	for _, table := range []string{"actions", "action_accounts", "action_transactions", "transactions"} {
		require.Contains(t, stdout, table+"_p", stdout)
	}
	all, old = count(int64(bound))
	require.Zero(t, old, "the detached spans' actions are out of the table")
	require.Equal(t, allBefore-oldBefore, all, "every later action stays")

	// Again: nothing left to detach below the bound.
	code, stdout, stderr = runCmd(vars, "partitions", "detach", "-before", before)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "nothing detached")

	// Past the head: refused, nothing changes.
	code, _, stderr = runCmd(vars, "partitions", "detach", "-before", "9000000000000000000")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "past the newest stored transaction")
	all2, _ := count(int64(bound))
	require.Equal(t, all, all2)
}

// Bad bounds name the flag, and SQLite, which has no partitions, says so.
func TestPartitionsCommandRefusals(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"DATABASE_URL": "sqlite:" + dir + "/tonql.db"}
	code, _, stderr := runCmd(vars, "migrate")
	require.Equal(t, 0, code, stderr)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"partitions", "detach"}, 2, "-before LT is required"},
		{[]string{"partitions", "detach", "-before", "0"}, 2, "-before: \"0\" is not a logical time"},
		{[]string{"partitions", "detach", "-before", "abc"}, 2, "-before: \"abc\" is not a logical time"},
		{[]string{"partitions", "detach", "-before", "99999999999999999999"}, 2, "is not a logical time"},
		{[]string{"partitions", "drop"}, 2, "unknown partitions command \"drop\""},
		{[]string{"partitions", "list", "-before", "5"}, 2, "-before"},
		{[]string{"partitions"}, 1, "this database has no partitions"},
		{[]string{"partitions", "detach", "-before", "5"}, 1, "this database has no partitions"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCmd(vars, c.args...)
			require.Equal(t, c.code, code, stderr)
			require.Contains(t, stderr, c.want)
		})
	}
}
