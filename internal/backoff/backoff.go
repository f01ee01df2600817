// Package backoff computes retry delays: exponential, capped, with jitter so
// that many clients retrying one server do not knock in step.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Policy doubles the delay from Base after each failed attempt, up to Max.
type Policy struct {
	Base, Max time.Duration
}

// Network suits calls to remote servers: 200ms, 400ms, ... up to 30s.
func Network() Policy { return Policy{Base: 200 * time.Millisecond, Max: 30 * time.Second} }

// Delay is the wait after the given failed attempt (1 = first failure):
// the capped exponential value d, jittered uniformly into [d/2, d]. rnd
// returns a number in [0, 1); nil uses math/rand.
func (p Policy) Delay(attempt int, rnd func() float64) time.Duration {
	if rnd == nil {
		rnd = rand.Float64
	}
	d := p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	if d > p.Max {
		d = p.Max
	}
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + time.Duration(rnd()*float64(d-half))
}

// Sleep waits d or until ctx ends, and returns ctx.Err() in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
