package main

import "testing"

// The committed actions.graphqls and docs/ACTIONS.md tables are what the
// declarations give: a declaration changed without regenerating fails here
// (and in CI, which also runs the generator).
func TestGeneratedFilesAreFresh(t *testing.T) {
	stale, err := run("../..", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Fatalf("stale: %v; run go run ./cmd/actionsgen and commit", stale)
	}
}

// Every declared type and every nested struct maps to GraphQL; an
// unsupported field type panics in renderSchema.
func TestEveryDeclarationRenders(t *testing.T) {
	if len(renderSchema()) == 0 || len(renderDocs()) == 0 {
		t.Fatal("nothing rendered")
	}
}
