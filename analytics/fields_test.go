package analytics

import (
	"reflect"
	"testing"

	"github.com/tonql/tonql/actions"
)

// TestFieldsMatchActions: each field TradesOf and MoveOf decode stands for
// the actions field of the same name, JSON key and type, so a renamed or
// retyped actions field fails here instead of reading as empty.
func TestFieldsMatchActions(t *testing.T) {
	for _, c := range []struct{ part, whole any }{
		{swapFields{}, actions.JettonSwap{}},
		{transferFields{}, actions.JettonTransfer{}},
		{mintFields{}, actions.JettonMint{}},
		{burnFields{}, actions.JettonBurn{}},
	} {
		pt, wt := reflect.TypeOf(c.part), reflect.TypeOf(c.whole)
		for i := range pt.NumField() {
			f := pt.Field(i)
			w, ok := wt.FieldByName(f.Name)
			if !ok {
				t.Errorf("%s.%s: no such field in %s", pt.Name(), f.Name, wt.Name())
				continue
			}
			if w.Type != f.Type || w.Tag.Get("json") != f.Tag.Get("json") {
				t.Errorf("%s.%s is %s `json:%q`, %s's is %s `json:%q`", pt.Name(), f.Name, f.Type, f.Tag.Get("json"), wt.Name(), w.Type, w.Tag.Get("json"))
			}
		}
	}
}
