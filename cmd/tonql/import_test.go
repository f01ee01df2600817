package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tonql/tonql/internal/testenv"
)

// runImportIn runs `tonql import` in-process on a fresh SQLite file.
func runImportIn(t *testing.T, db string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = run(context.Background(), append([]string{"import", "-database-url", "sqlite:" + db}, args...), e)
	return code, out.String(), errb.String()
}

func TestImportFolderSkipsOtherFiles(t *testing.T) {
	block := testenv.Fixture(t, "blocks/block-2.bin")
	dir := t.TempDir()
	// The block by link (fixtures are never copied), beside a JSON file of
	// another kind, like the decoded config in the fixtures' blocks folder.
	if err := os.Symlink(block, filepath.Join(dir, "block-2.bin")); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "config.decoded.json")
	if err := os.WriteFile(other, []byte(`{"config": {"param_20": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "tonql.db")

	code, stdout, stderr := runImportIn(t, db, dir)
	if code != 0 {
		t.Fatalf("folder import failed (%d): %s", code, stderr)
	}
	if !strings.Contains(stderr, "not imported") || !strings.Contains(stderr, other) {
		t.Errorf("no notice naming the skipped file:\n%s", stderr)
	}
	if !strings.Contains(stdout, "imported 1 files") {
		t.Errorf("summary: %s", stdout)
	}

	// Named explicitly, the same file is an error that names it.
	code, _, stderr = runImportIn(t, db, other)
	if code == 0 || !strings.Contains(stderr, other) {
		t.Errorf("explicit unknown file: code %d, stderr:\n%s", code, stderr)
	}

	// A damaged file of a known kind fails the run even inside a folder.
	if err := os.WriteFile(filepath.Join(dir, "broken.bin"), []byte("not a block"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runImportIn(t, db, dir)
	if code == 0 || !strings.Contains(stderr, "broken.bin") {
		t.Errorf("damaged file in a folder: code %d, stderr:\n%s", code, stderr)
	}
}
