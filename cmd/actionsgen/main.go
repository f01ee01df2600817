// Command actionsgen writes what the action declarations of package actions
// imply: the GraphQL types of action details (actions.graphqls, bound by
// gqlgen to the very same structs) and the per-type tables of
// docs/ACTIONS.md. CI runs it and fails when the files it writes change.
//
//	go run ./cmd/actionsgen            # rewrite both files
//	go run ./cmd/actionsgen -check     # exit 1 when either is stale
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// Outputs, relative to the repository root.
const (
	schemaFile = "actions.graphqls"
	docsFile   = "docs/ACTIONS.md"
)

func main() {
	root := flag.String("root", ".", "repository root")
	check := flag.Bool("check", false, "only report whether the files are up to date")
	flag.Parse()
	stale, err := run(*root, *check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "actionsgen:", err)
		os.Exit(2)
	}
	if *check && len(stale) > 0 {
		fmt.Fprintf(os.Stderr, "actionsgen: stale: %v (run go run ./cmd/actionsgen)\n", stale)
		os.Exit(1)
	}
}

// run renders both files; with check it writes nothing and returns the
// stale ones.
func run(root string, check bool) ([]string, error) {
	docsPath := filepath.Join(root, docsFile)
	oldDocs, err := os.ReadFile(docsPath)
	if err != nil {
		return nil, err
	}
	newDocs, err := spliceDocs(oldDocs, renderDocs())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", docsFile, err)
	}
	outputs := map[string][]byte{schemaFile: renderSchema(), docsFile: newDocs}
	var stale []string
	for _, name := range []string{schemaFile, docsFile} {
		path := filepath.Join(root, name)
		old, _ := os.ReadFile(path)
		if bytes.Equal(old, outputs[name]) {
			continue
		}
		stale = append(stale, name)
		if !check {
			if err := os.WriteFile(path, outputs[name], 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, nil
}
