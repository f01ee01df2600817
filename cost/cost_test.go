package cost_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/ratelimit"
)

// limiterAdmitter charges a key of a real rate limiter, as the server's
// admitter does.
type limiterAdmitter struct {
	l     *ratelimit.Limiter
	lim   ratelimit.Limit
	units int
}

func (a *limiterAdmitter) Take() (bool, time.Duration, string) {
	ok, wait := a.l.Allow("k", a.lim)
	return ok, wait, "1 requests/s, burst 3"
}

func (a *limiterAdmitter) Count(n int) { a.units += n }

// The budget is recorded work, not measured here: the figures are the
// ones handed to Spend, so the test is exact on any machine.
func TestBudgetStopsCallsItCannotHold(t *testing.T) {
	ctx := cost.Start(context.Background(), cost.Limits{Work: time.Second}, nil)
	require.NoError(t, cost.Afford(ctx, 10*time.Second), "the first heavy work always runs")
	cost.Spend(ctx, 400*time.Millisecond)
	require.NoError(t, cost.Afford(ctx, 500*time.Millisecond))
	err := cost.Afford(ctx, 700*time.Millisecond)
	require.Equal(t, apperr.OverBudget, apperr.From(err).Kind)
	require.Contains(t, err.Error(), "work budget")
	done, err := cost.Item(ctx)
	require.NoError(t, err, "calls still start while the budget is not spent")
	done(nil)
	cost.Spend(ctx, 600*time.Millisecond)
	_, err = cost.Item(ctx)
	require.Equal(t, apperr.OverBudget, apperr.From(err).Kind)

	cancelled, cancel := context.WithCancel(cost.Start(context.Background(), cost.Limits{}, nil))
	cancel()
	_, err = cost.Item(cancelled)
	require.Contains(t, err.Error(), "time ran out", "not a database timeout")

	none := cost.Start(context.Background(), cost.Limits{Work: -1}, nil)
	cost.Spend(none, time.Hour)
	_, err = cost.Item(none)
	require.NoError(t, err, "a negative budget bounds nothing")
}

// Calls after the first take a token each before they run; once one is
// refused the rest are too (a batch answers in order), and units count
// only the calls the server answered.
func TestItemsTakeTokensBeforeTheyRun(t *testing.T) {
	clk := time.Unix(1_700_000_000, 0)
	a := &limiterAdmitter{l: ratelimit.New(func() time.Time { return clk }), lim: ratelimit.Limit{Rate: 1, Burst: 3}}
	ctx := cost.Start(context.Background(), cost.Limits{}, a)
	var kinds []apperr.Kind
	for i := range 6 {
		done, err := cost.Item(ctx)
		if err != nil {
			kinds = append(kinds, apperr.From(err).Kind)
			continue
		}
		kinds = append(kinds, -1)
		switch i {
		case 1:
			done(apperr.New(apperr.Unavailable, "database down")) // a 5xx: no unit
		case 2:
			done(apperr.Field("x", "bad")) // a 4xx: a unit
		default:
			done(nil)
		}
	}
	// The first is the request's own; three tokens for the next three.
	require.Equal(t, []apperr.Kind{-1, -1, -1, -1, apperr.RateLimited, apperr.RateLimited}, kinds)
	require.Equal(t, 2, a.units, "calls 2 (4xx) and 3 (ok); call 1 (5xx) is free, call 0 is the request's")
}
