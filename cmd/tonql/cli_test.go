package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// runCmd runs tonql in-process with the given environment.
func runCmd(vars map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}
	code = run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

// Each command's help lists its own flags, with their environment variable
// and default, and none of the settings it does not use.
func TestCommandHelpListsOwnFlags(t *testing.T) {
	cases := []struct {
		args []string
		own  []string
	}{
		{[]string{"serve"}, []string{"listen", "database-url", "database-max-conns", "redis-url", "database-replicas", "replica-max-lag", "network",
			"require-api-key", "rate-limit", "rate-burst", "request-timeout", "request-work-budget", "cors-origins", "log-level", "access-log", "access-log-sample", "pprof-addr", "address-book-ttl", "token-cache-bytes", "max-streams", "max-streams-per-key", "max-streams-per-address", "max-stream-addresses", "max-watched-per-key", "stream-pending-timeout",
			"lite-servers-config", "lite-servers", "follow", "state-max-age", "fee-clock", "get-method-gas-limit",
			"metadata-workers", "ipfs-gateway", "metadata-fetch-timeout", "metadata-max-bytes", "metadata-allow-private",
			"webhook-allow-private", "webhook-workers", "webhook-timeout", "webhook-max-per-key", "webhook-max-addresses", "webhook-retry-for", "webhook-disable-after"}},
		{[]string{"migrate"}, []string{"database-url", "database-max-conns"}},
		{[]string{"follow"}, []string{"database-url", "database-max-conns", "network", "lite-servers-config", "lite-servers", "from", "max-retries",
			"metadata-workers", "ipfs-gateway", "metadata-fetch-timeout", "metadata-max-bytes", "metadata-allow-private"}},
		{[]string{"import"}, []string{"database-url", "database-max-conns", "network"}},
		{[]string{"reclassify"}, []string{"database-url", "database-max-conns", "after"}},
		{[]string{"metadata", "refresh"}, []string{"database-url", "database-max-conns"}},
		{[]string{"analytics", "rebuild"}, []string{"database-url", "database-max-conns"}},
		{[]string{"classify"}, []string{"network"}},
		{[]string{"version"}, nil},
		{[]string{"keys", "create"}, []string{"database-url", "database-max-conns", "name", "rate", "burst"}},
		{[]string{"keys", "list"}, []string{"database-url", "database-max-conns", "redis-url"}},
		{[]string{"keys", "usage"}, []string{"database-url", "database-max-conns", "redis-url"}},
		{[]string{"keys", "revoke"}, []string{"database-url", "database-max-conns"}},
		{[]string{"keys", "limit"}, []string{"database-url", "database-max-conns", "rate", "burst"}},
		{[]string{"partitions", "list"}, []string{"database-url", "database-max-conns"}},
		{[]string{"partitions", "detach"}, []string{"database-url", "database-max-conns", "before", "dry-run"}},
	}
	// A password in the environment never shows in help.
	vars := map[string]string{"DATABASE_URL": "postgres://u:hunter2@h/db", "REDIS_URL": "redis://:s3cret@h:6379/0"}
	flagLine := regexp.MustCompile(`(?m)^  -([a-z-]+)`)
	for _, c := range cases {
		for _, h := range []string{"-h", "--help"} {
			name := strings.Join(append(c.args, h), " ")
			t.Run(name, func(t *testing.T) {
				code, stdout, stderr := runCmd(vars, append(c.args, h)...)
				require.Equal(t, 0, code, stderr)
				// Only its own help: nothing before it, nothing on stderr.
				require.True(t, strings.HasPrefix(stdout, "usage: tonql "+strings.Join(c.args, " ")), stdout)
				require.Empty(t, stderr)
				var listed []string
				for _, m := range flagLine.FindAllStringSubmatch(stdout, -1) {
					listed = append(listed, m[1])
				}
				// Exactly its own: no serve, live-chain or fee flag on a
				// command that does not use them.
				require.ElementsMatch(t, c.own, listed, stdout)
				if contains(c.own, "database-url") {
					require.Contains(t, stdout, "(env DATABASE_URL, default sqlite:./data/tonql.db)")
				}
				require.NotContains(t, stdout, "hunter2")
				require.NotContains(t, stdout, "s3cret")
			})
		}
	}
	t.Run("keys -h", func(t *testing.T) {
		code, stdout, _ := runCmd(nil, "keys", "-h")
		require.Equal(t, 0, code)
		for _, sub := range []string{"create --name NAME", "list", "revoke KEY", "usage KEY", "limit KEY"} {
			require.Contains(t, stdout, sub)
		}
	})
	t.Run("tonql -h", func(t *testing.T) {
		code, stdout, _ := runCmd(nil, "-h")
		require.Equal(t, 0, code)
		require.Contains(t, stdout, "version")
		// Every keys subcommand is named at the top, limit included.
		require.Regexp(t, `(?m)^  keys .*create.*list.*revoke.*usage.*limit KEY`, stdout)
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A flag a command does not have is a usage error (exit 2) that names it,
// also when another command has that flag.
func TestUnknownFlagsExit2(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"import", "-bogus", "x"},
		{"import", "-listen", ":1", "x"}, // serve's
		{"keys", "list", "-follow"},
		{"keys", "usage", "KEY", "-name", "x"}, // create's
		{"serve", "-bogus"},
		{"version", "-v"},
		{"classify", "-database-url", "sqlite:x.db", "f.json"},
		{"keys", "frobnicate"},
	} {
		code, _, stderr := runCmd(nil, args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Regexp(t, `flag provided but not defined|unknown keys command`, stderr, args)
		if strings.Contains(stderr, "flag provided") {
			require.Contains(t, stderr, "-h' for its flags", args) // the pointer to the help, after the error
		}
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "a command with a bad flag created files")
}

// `tonql version` and `tonql --version`: the module, the commit, Go and
// the emulator library (its TON commit as the library reports it).
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runCmd(nil, args...)
		require.Equal(t, 0, code, stderr)
		require.Regexp(t, `(?m)^tonql \S+`, stdout)
		require.Regexp(t, `(?m)^commit: \S+`, stdout)
		require.Regexp(t, `(?m)^go: go1\.\d+`, stdout)
		require.Regexp(t, `(?m)^emulator: TON [0-9a-f]{40} \(\d{4}-\d\d-\d\d[^)]*\), from tongo v\d+\.\d+\.\d+`, stdout)
	}
}

// The environment's settings of other commands are not read: a bad
// RATE_LIMIT (a server setting) does not stop an import, and a command
// prints only its own settings.
func TestCommandsIgnoreOtherSettings(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tonql.db")
	vars := map[string]string{"DATABASE_URL": "sqlite:" + db, "RATE_LIMIT": "lots", "FEE_CLOCK": "noon"}
	code, stdout, stderr := runCmd(vars, "migrate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "database is up to date")
	code, _, stderr = runCmd(vars, "serve")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `RATE_LIMIT: cannot use "lots"`)
}

// DATABASE_MAX_CONNS is checked by every command that opens the database,
// from the environment and from the flag, naming the setting.
func TestDatabaseMaxConnsIsChecked(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tonql.db")
	for _, c := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{map[string]string{"DATABASE_MAX_CONNS": "0"}, []string{"migrate"}, "DATABASE_MAX_CONNS must be between 1 and 10000, not 0"},
		{map[string]string{"DATABASE_MAX_CONNS": "many"}, []string{"import", "x.json"}, `DATABASE_MAX_CONNS: cannot use "many"`},
		{nil, []string{"serve", "-database-max-conns", "20000"}, "DATABASE_MAX_CONNS must be between 1 and 10000, not 20000"},
		{nil, []string{"keys", "list", "-database-max-conns=-1"}, "DATABASE_MAX_CONNS must be between 1 and 10000, not -1"},
	} {
		vars := map[string]string{"DATABASE_URL": "sqlite:" + db}
		for k, v := range c.vars {
			vars[k] = v
		}
		code, _, stderr := runCmd(vars, c.args...)
		require.Equal(t, 1, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.want, c.args)
	}
	code, stdout, stderr := runCmd(map[string]string{"DATABASE_URL": "sqlite:" + db, "DATABASE_MAX_CONNS": "4"}, "migrate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "database is up to date")
}

// tonql never creates a Postgres database: serve, migrate, import and
// keys create on a missing one exit 1 and say how to create it, and the
// read-only commands name it too.
func TestMissingPostgresDatabaseIsNamed(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.Path = "/tonql_missing_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	vars := map[string]string{"DATABASE_URL": u.String()}
	for _, args := range [][]string{{"serve", "-listen", "127.0.0.1:0"}, {"migrate"}, {"import", t.TempDir()}, {"keys", "create", "--name", "n"}, {"keys", "list"}} {
		code, _, stderr := runCmd(vars, args...)
		require.Equal(t, 1, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "no database at DATABASE_URL=", args)
		require.Contains(t, stderr, "createdb", args)
	}
}
