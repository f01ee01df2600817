package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// The metadata settings are checked at start, each error naming its
// variable.
func TestMetadataConfig(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"METADATA_WORKERS", "-1", "METADATA_WORKERS must be between 0 and 256"},
		{"METADATA_WORKERS", "1000", "METADATA_WORKERS must be between 0 and 256"},
		{"METADATA_WORKERS", "many", `METADATA_WORKERS: cannot use "many"`},
		{"METADATA_FETCH_TIMEOUT", "0s", "METADATA_FETCH_TIMEOUT must be positive"},
		{"METADATA_MAX_BYTES", "0", "METADATA_MAX_BYTES must be at least 1"},
		{"METADATA_ALLOW_PRIVATE", "maybe", `METADATA_ALLOW_PRIVATE: cannot use "maybe"`},
		{"IPFS_GATEWAY", "ipfs.io", `IPFS_GATEWAY: "ipfs.io" is not an http(s) URL`},
	} {
		for _, cmd := range []string{"serve", "follow"} {
			var errb bytes.Buffer
			e := &env{stdout: io.Discard, stderr: &errb, getenv: func(k string) string {
				if k == c.key {
					return c.value
				}
				return ""
			}}
			require.Equal(t, 1, run(context.Background(), []string{cmd}, e), "%s %s=%s", cmd, c.key, c.value)
			require.Contains(t, errb.String(), c.want)
		}
	}
}

// `tonql metadata refresh` makes stored tokens due now and says which
// addresses hold none; a bad address is an error naming it.
func TestMetadataRefreshCommand(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "t.db")
	vars := map[string]string{"DATABASE_URL": url}
	code, _, stderr := runCmd(vars, "metadata", "refresh", "0:"+strings.Repeat("0", 64))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no database at DATABASE_URL")

	st, err := store.Open(context.Background(), url)
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Migrate(context.Background())
	require.NoError(t, err)
	tok := chain.TokenContent{Address: fmt.Sprintf("0:%064X", 1), Kind: chain.TokenJettonMaster, ContentHash: chain.Hash{1}, Content: []byte{1}}
	_, err = st.EnqueueTokenContent(context.Background(), []chain.TokenContent{tok})
	require.NoError(t, err)
	// Taken by a worker, far from due.
	jobs, err := st.ClaimTokenJobs(context.Background(), time.Now().Add(time.Second), time.Hour, 10)
	require.NoError(t, err)
	require.Len(t, jobs, 1)

	other := fmt.Sprintf("0:%064X", 2)
	code, stdout, stderr := runCmd(vars, "metadata", "refresh", strings.ToLower(tok.Address), other)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, strings.ToLower(tok.Address)+": due now")
	require.Contains(t, stdout, other+": no token at this address in the database")
	jobs, err = st.ClaimTokenJobs(context.Background(), time.Now().Add(time.Second), time.Hour, 10)
	require.NoError(t, err)
	require.Len(t, jobs, 1, "due again")

	code, _, stderr = runCmd(vars, "metadata", "refresh", "nope")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `"nope"`)
	code, _, _ = runCmd(vars, "metadata", "refresh")
	require.Equal(t, 2, code)
	code, _, _ = runCmd(vars, "metadata")
	require.Equal(t, 2, code)
}
