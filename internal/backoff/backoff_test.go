package backoff

import (
	"testing"
	"time"
)

func TestDelayDoublesCapsAndJitters(t *testing.T) {
	p := Policy{Base: 100 * time.Millisecond, Max: time.Second}
	low := func() float64 { return 0 }
	high := func() float64 { return 0.999999 }
	for _, c := range []struct {
		attempt  int
		min, max time.Duration
	}{
		{1, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 400 * time.Millisecond, 800 * time.Millisecond},
		{5, 500 * time.Millisecond, time.Second},
		{60, 500 * time.Millisecond, time.Second},
	} {
		if got := p.Delay(c.attempt, low); got != c.min {
			t.Errorf("attempt %d, low jitter: %v, want %v", c.attempt, got, c.min)
		}
		if got := p.Delay(c.attempt, high); got < c.max-time.Microsecond || got > c.max {
			t.Errorf("attempt %d, high jitter: %v, want about %v", c.attempt, got, c.max)
		}
	}
	if (Policy{}).Delay(3, nil) != 0 {
		t.Error("zero policy must not wait")
	}
}
