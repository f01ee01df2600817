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
	const full, nsPerGas = 1_000_000, 1000.0 // a run at the limit: 1 s
	gas, err := cost.Gas(ctx, full, nsPerGas)
	require.NoError(t, err)
	require.EqualValues(t, full, gas, "the first heavy work runs at the gas limit")
	cost.Spend(ctx, 400*time.Millisecond)
	gas, err = cost.Gas(ctx, full, nsPerGas)
	require.NoError(t, err)
	require.EqualValues(t, 600_000, gas, "later calls get what the budget left pays for")
	gas, err = cost.Gas(ctx, full, 0)
	require.NoError(t, err)
	require.EqualValues(t, full, gas, "no rate known yet: the gas limit")
	require.Contains(t, cost.BudgetSpent(ctx).Error(), "ran out during this call")
	done, err := cost.Item(ctx)
	require.NoError(t, err, "calls still start while the budget is not spent")
	done(nil)
	cost.Spend(ctx, 595*time.Millisecond)
	_, err = cost.Gas(ctx, full, nsPerGas)
	require.Equal(t, apperr.OverBudget, apperr.From(err).Kind, "5,000 gas left: below the least a call starts with")
	require.Contains(t, err.Error(), "work budget")
	cost.Spend(ctx, 5*time.Millisecond)
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
