// Command gqlleaf rewrites gqlgen's generated executor so that a scalar or
// enum field read straight from a struct field costs a read, not a resolver
// call. It runs after gqlgen (go generate ./graph):
//
//	go run ./cmd/gqlleaf graph/generated.go
//
// Why: gqlgen executes every field alike. A field that only reads
// obj.StartLt still goes through the resolver middleware chain in a closure,
// boxes the value in an interface and unboxes it again, and stores it once
// more in the field context: seven allocations per field, four of them for
// nothing when no resolver runs. A page of 10 actions with 10 fields each
// spent 700 allocations there (docs/PERFORMANCE.md).
//
// And the value itself: gqlgen converts it to the graphql.Marshaler
// interface, one allocation per field (a string, a number's string and the
// closure around it). A value whose marshaler only wraps it is handed over
// as a pointer into the struct instead, which fits in the interface with
// no allocation: a built-in scalar through a leaf type written beside the
// executor (leafString{&obj.TraceID}; numbers are appended straight into
// the response buffer), a custom scalar that marshals itself as
// &obj.Value. And a list of objects whose selection is all such leaves is
// written as one value (lists.go); and the query's answer is marshalled
// into a buffer the transport lends and reuses (buffer.go). Together with lazy loaders this took a
// GraphQL page of ten actions from 1,160 to 853 allocations (REST: 704).
//
// What changes: only functions of the exact generated shape, for fields
// whose field context says IsResolver false, IsMethod false and no child
// fields, reading obj.<Field>. Their field context (error paths), the
// recover that turns a panic into a field error, the null check and the
// marshaler stay as gqlgen wrote them; when the marshaler can report no
// error (quietMarshalers: it reads no ctx but through quiet marshalers),
// the field context is made only on the null branch, which only a nil
// interface reaches: 816 of the 825 fields. What they no longer do is call the
// field middlewares (handler.Server.AroundFields), which this server does
// not use: a middleware added later would not see these fields.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// CompanionFile is written beside the executor: the table of computed
// fields that sequentialSelection reads.
const CompanionFile = "gqlleaf_gen.go"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gqlleaf GENERATED.go...")
		os.Exit(2)
	}
	for _, path := range os.Args[1:] {
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gqlleaf:", err)
			os.Exit(1)
		}
		out, n, err := rewrite(src)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gqlleaf: %s: %v\n", path, err)
			os.Exit(1)
		}
		if !bytes.Equal(out, src) {
			if err := os.WriteFile(path, out, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "gqlleaf:", err)
				os.Exit(1)
			}
		}
		extra, err := companion(out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gqlleaf: %s: %v\n", path, err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(path), CompanionFile), extra, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gqlleaf:", err)
			os.Exit(1)
		}
		fmt.Printf("gqlleaf: %s: %d leaf fields read directly\n", path, n)
	}
}
