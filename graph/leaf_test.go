package graph

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// marshalled is what m writes, into the response's bytes.Buffer and into
// any other writer (the leaf types write numbers straight into a buffer).
func marshalled(t *testing.T, m graphql.Marshaler) string {
	t.Helper()
	var buf bytes.Buffer
	m.MarshalGQL(&buf)
	var sb strings.Builder
	m.MarshalGQL(&sb)
	if buf.String() != sb.String() {
		t.Fatalf("a buffer got %s, another writer %s", buf.String(), sb.String())
	}
	return buf.String()
}

// The leaf types (cmd/gqlleaf) write what gqlgen's marshalers write.
func TestLeafTypesWriteWhatGqlgenWrites(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x1f\x7f", "unicode ✓ 🙂", "\u2028"} {
		if got, want := marshalled(t, leafString{&s}), marshalled(t, graphql.MarshalString(s)); got != want {
			t.Errorf("string %q: %s, want %s", s, got, want)
		}
	}
	for _, v := range []uint64{0, 1, 10, math.MaxUint32, math.MaxUint64} {
		if got, want := marshalled(t, leafUint64{&v}), marshalled(t, graphql.MarshalUint64(v)); got != want {
			t.Errorf("uint64 %d: %s, want %s", v, got, want)
		}
	}
	for _, v := range []uint32{0, 7, math.MaxUint32} {
		if got, want := marshalled(t, leafUint32{&v}), marshalled(t, graphql.MarshalUint32(v)); got != want {
			t.Errorf("uint32 %d: %s, want %s", v, got, want)
		}
	}
	for _, v := range []int{0, -1, math.MinInt, math.MaxInt} {
		if got, want := marshalled(t, leafInt{&v}), marshalled(t, graphql.MarshalInt(v)); got != want {
			t.Errorf("int %d: %s, want %s", v, got, want)
		}
	}
	for _, v := range []bool{false, true} {
		if got, want := marshalled(t, leafBoolean{&v}), marshalled(t, graphql.MarshalBoolean(v)); got != want {
			t.Errorf("bool %v: %s, want %s", v, got, want)
		}
	}
}

// A leaf string and a leafObjects key are quoted byte for byte as gqlgen
// quotes them, whatever the bytes: escapes, control bytes, invalid UTF-8.
func FuzzLeafStringWritesWhatGqlgenWrites(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b\c`, "\t\r\n\x00\x1f\x7f", "\xff\xfe", "\xe2\x9c", "✓\u2028🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := marshalled(t, leafString{&s}), marshalled(t, graphql.MarshalString(s)); got != want {
			t.Fatalf("string %q: %s, want %s", s, got, want)
		}
		v := uint64(7)
		list := leafObjects{fields: []graphql.CollectedField{{Field: &ast.Field{Alias: s}}, {Field: &ast.Field{Alias: "n"}}},
			vals: []graphql.Marshaler{leafString{&s}, leafUint64{&v}, graphql.Null, leafString{&s}}, n: 2}
		want := "[{" + marshalled(t, graphql.MarshalString(s)) + ":" + marshalled(t, graphql.MarshalString(s)) + `,"n":7},{` +
			marshalled(t, graphql.MarshalString(s)) + `:null,"n":` + marshalled(t, graphql.MarshalString(s)) + "}]"
		if got := marshalled(t, list); got != want {
			t.Fatalf("list with key %q: %s, want %s", s, got, want)
		}
	})
}

// A leaf is handed over without an allocation: that is what it is for.
func TestLeafTypesDoNotAllocate(t *testing.T) {
	v, s := uint64(1234567), "text"
	var buf bytes.Buffer
	buf.Grow(1 << 10)
	var sink graphql.Marshaler
	if n := testing.AllocsPerRun(100, func() {
		sink = leafUint64{&v}
		sink.MarshalGQL(&buf)
		sink = leafString{&s}
		sink.MarshalGQL(&buf)
		buf.Reset()
	}); n != 0 {
		t.Errorf("%v allocations per leaf pair, want 0", n)
	}
}

// A lent response buffer is handed out once: the first response of an
// operation is marshalled into it, later ones (deferred parts) and
// operations run without one get buffers of their own.
func TestResponseBufferIsLentOnce(t *testing.T) {
	lent := new(bytes.Buffer)
	ctx := WithResponseBuffer(context.Background(), lent)
	if responseBuffer(ctx) != lent {
		t.Fatal("the first response did not get the lent buffer")
	}
	if second := responseBuffer(ctx); second == lent || second == nil {
		t.Fatal("a second response got the lent buffer again")
	}
	a, b := responseBuffer(context.Background()), responseBuffer(context.Background())
	if a == nil || a == b {
		t.Fatal("without a lent buffer each response needs a new one")
	}
}

// BenchmarkLeafObjects writes a page of ten actions' hash and number
// fields as leafObjects does, and the same strings through gqlgen's
// MarshalString (what leafString did before appendQuoted).
func BenchmarkLeafObjects(b *testing.B) {
	hash, lt := "gachwt13fUH5ajrbHO3orl4G0q1XsEITCElXyzJngf4=", uint64(58104953000003)
	names := []string{"action_id", "trace_id", "tx_hash", "type", "status", "start_lt", "end_lt"}
	fields := make([]graphql.CollectedField, len(names))
	for i, n := range names {
		fields[i] = graphql.CollectedField{Field: &ast.Field{Alias: n}}
	}
	var vals []graphql.Marshaler
	for range 10 {
		vals = append(vals, leafString{&hash}, leafString{&hash}, leafString{&hash}, leafString{&hash}, leafString{&hash}, leafUint64{&lt}, leafUint64{&lt})
	}
	list := leafObjects{fields: fields, vals: vals, n: 10}
	var buf bytes.Buffer
	b.Run("leafObjects", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			list.MarshalGQL(&buf)
		}
	})
	b.Run("gqlgen-strings", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			for _, v := range vals {
				if s, ok := v.(leafString); ok {
					graphql.MarshalString(*s.p).MarshalGQL(&buf)
				}
			}
		}
	})
	b.Run("leaf-strings", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			for _, v := range vals {
				if s, ok := v.(leafString); ok {
					s.MarshalGQL(&buf)
				}
			}
		}
	})
}
