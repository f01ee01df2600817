package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// A CORS_ORIGINS entry that is not an origin fails at start, naming it,
// instead of silently blocking a frontend.
func TestCORSOriginsConfig(t *testing.T) {
	for _, bad := range []string{"app.example", "https://app.example/path", "ftp://x", "https://"} {
		var errb bytes.Buffer
		e := &env{stdout: io.Discard, stderr: &errb, getenv: func(k string) string {
			if k == "CORS_ORIGINS" {
				return "https://ok.example," + bad
			}
			return ""
		}}
		require.Equal(t, 1, run(context.Background(), []string{"serve"}, e), bad)
		require.Contains(t, errb.String(), "CORS_ORIGINS", bad)
		require.Contains(t, errb.String(), bad)
	}
}
