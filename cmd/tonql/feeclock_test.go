package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FEE_CLOCK takes wall or head, and nothing else.
func TestFeeClockConfig(t *testing.T) {
	var errb bytes.Buffer
	e := &env{stdout: io.Discard, stderr: &errb, getenv: func(k string) string {
		if k == "FEE_CLOCK" {
			return "noon"
		}
		return ""
	}}
	require.Equal(t, 1, run(context.Background(), []string{"serve"}, e))
	require.Contains(t, errb.String(), `FEE_CLOCK must be wall or head, not "noon"`)
}

// A head clock over an empty database says what is missing (503), and
// the wall clock is the default.
func TestServeHeadClockOnEmptyDatabase(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "tonql.db")
	base, out := startServe(t, map[string]string{"DATABASE_URL": "sqlite:" + dbPath, "FEE_CLOCK": "head"})
	require.Contains(t, out.String(), setting("FEE_CLOCK", "head"))
	body := `{"address":"0:` + strings.Repeat("ab", 32) + `","body":"te6cckEBAQEAAgAAAEysuc0="}`
	resp, err := http.Post(base+"/api/v2/estimateFee", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(b))
	require.Contains(t, string(b), "FEE_CLOCK=head, but the database holds no blocks or account states yet")

	_, out = startServe(t, map[string]string{"DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "other.db")})
	require.Contains(t, out.String(), setting("FEE_CLOCK", "wall"))
}
