package toncenter

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// filler sets every field reachable from a value to one that is not its
// zero and differs from every other field's: a string json.Marshal must
// escape with a running number, numbers from the same count, true, one
// element in each slice and map. A field added to a page's types but not
// to its hand encoder (chainjson.go), or written in another's place, then
// shows as a difference from json.Marshal, whatever the fixtures hold.
type filler struct{ n int64 }

func (f *filler) next() int64 { f.n++; return f.n }

// fill fills v; depth bounds recursive types (TraceNode's children).
func (f *filler) fill(v reflect.Value, depth int) {
	if depth > 4 {
		return
	}
	if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
		// Raw JSON without <, > and &: json.Marshal HTML-escapes those
		// inside a Marshaler's output, and chain.Metadata writes a token's
		// stored extra JSON as it is (the same JSON, other bytes).
		v.Set(reflect.ValueOf(json.RawMessage(`{"k":["xé",1]}`)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		f.fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		f.fill(k, depth+1)
		f.fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("q\"\\<\u00e9>\u2028" + strconv.FormatInt(f.next(), 10))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-f.next() % 100)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.next() % 200))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.5)
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf("any<&>" + strconv.FormatInt(f.next(), 10)))
		}
	}
}

// TestChainPagesJSONCoverEveryField: each page's hand encoder writes what
// json.Marshal writes with every field of every type it holds filled.
func TestChainPagesJSONCoverEveryField(t *testing.T) {
	for _, page := range []interface {
		AppendJSON([]byte) ([]byte, error)
	}{&TransactionsResponse{}, &MessagesResponse{}, &TracesResponse{}, &EventsResponse{}} {
		(&filler{}).fill(reflect.ValueOf(page).Elem(), 0)
		t.Run(reflect.TypeOf(page).Elem().Name(), func(t *testing.T) { requireSameJSON(t, page) })
	}
}
