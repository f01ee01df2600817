package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// `tonql analytics rebuild` makes the rows again from what `tonql import`
// stored: the toncenter traces' swaps and jetton moves.
func TestAnalyticsRebuildCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	code, _, stderr := runImportIn(t, db, testenv.Fixture(t, "toncenter-traces/traces"))
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := runCmd(map[string]string{"DATABASE_URL": "sqlite:" + db}, "analytics", "rebuild")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `^rebuilt analytics from [1-9]\d* trades and [1-9]\d* jetton moves in `, stdout)
	code, _, _ = runCmd(nil, "analytics", "drop")
	require.Equal(t, 2, code)
}
