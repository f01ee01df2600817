package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
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
