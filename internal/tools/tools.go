//go:build tools

// Package tools pins the code generators the build runs (gqlgen), so that
// `go mod tidy` keeps their dependencies and CI can regenerate graph/ from a
// clean clone.
package tools

import _ "github.com/99designs/gqlgen"
