package graph

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
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
