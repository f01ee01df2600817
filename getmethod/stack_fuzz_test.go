package getmethod

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/tonql/tonql/apperr"
)

// FuzzStack feeds arbitrary JSON to the stack decoder: every input is a
// stack or an error naming "stack", never a panic, and a decoded stack
// renders.
func FuzzStack(f *testing.F) {
	for _, s := range []string{`[]`, `null`, `[["num", 5], ["num", "-0x1a"], ["int", "12"]]`,
		`[["tvm.Slice", "te6cckEBAQEAJAAAQ4AR3xJXo/Ldg4crUvUGtSkBbrzPyCTBnaqalsDsA9AaMbDSxB7x"]]`,
		`[["cell", "te6cckEBAQEAAgAAAEysuc0="]]`, `[["builder", "te6cckEBAQEAAgAAAEysuc0="]]`,
		`[["num", 1e300]]`, `[["num"]]`, `{}`, `[[]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseStack(json.RawMessage(data))
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Kind != apperr.Invalid || ae.Field != "stack" {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if _, err := RenderStack(s); err != nil {
			t.Fatalf("a parsed stack does not render: %v", err)
		}
	})
}
