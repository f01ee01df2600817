package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every setting a command reads is in the README's configuration table,
// with its flag and its default, so the README stays true as settings are
// added.
func TestReadmeListsEverySetting(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	f := newFlags(e, "serve", "", "")
	bindConfig(f, e, groupAll)
	require.NotEmpty(t, f.env)
	for name, key := range f.env {
		def := f.def[name]
		if def == "" {
			def = "empty"
		} else {
			def = "`" + def + "`"
		}
		row := "| `" + key + "` | `-" + name + "` | " + def + " |"
		require.True(t, strings.Contains(string(readme), row), "README's configuration table lacks the row starting %q", row)
	}
}
