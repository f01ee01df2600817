package ratelog

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestRepeatsAreHeldBack(t *testing.T) {
	var buf bytes.Buffer
	l := New(slog.New(slog.NewTextHandler(&buf, nil)), time.Minute)
	clock := time.Unix(1000, 0)
	l.now = func() time.Time { return clock }
	refused := errors.New("connection refused")
	if !l.Warn("lite server down", refused) {
		t.Fatal("first occurrence must be logged")
	}
	for range 50 {
		if l.Warn("lite server down", refused) {
			t.Fatal("repeat within the interval logged")
		}
	}
	if !l.Warn("lite server down", errors.New("timeout")) {
		t.Fatal("a different error must be logged")
	}
	clock = clock.Add(2 * time.Minute)
	if !l.Warn("lite server down", refused) {
		t.Fatal("repeat after the interval must be logged")
	}
	if lines := strings.Count(buf.String(), "\n"); lines != 3 {
		t.Fatalf("%d lines logged, want 3:\n%s", lines, buf.String())
	}
	if !strings.Contains(buf.String(), "repeated=50") {
		t.Fatalf("held-back count missing:\n%s", buf.String())
	}
}
