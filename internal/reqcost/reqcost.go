// Package reqcost lets a handler charge the key of its request for work
// beyond one call, such as the other calls of a JSON-RPC batch or the
// other estimateFee fields of a GraphQL operation: the key middleware
// charges one unit and one rate-limit token per request, and puts a
// Charger in the context for the rest.
package reqcost

import (
	"context"
	"sync/atomic"
)

// Charger charges the request's key for extra calls.
type Charger func(extra int)

type meter struct {
	charge Charger
	calls  atomic.Int64
}

type meterKey struct{}

// With puts c in ctx.
func With(ctx context.Context, c Charger) context.Context {
	return context.WithValue(ctx, meterKey{}, &meter{charge: c})
}

// Charge charges the request's key for extra calls; requests without a key
// (bare routes) cost nothing.
func Charge(ctx context.Context, extra int) {
	if m, ok := ctx.Value(meterKey{}).(*meter); ok && extra > 0 {
		m.charge(extra)
	}
}

// Call counts one expensive call of the request: the first is covered by
// the request itself, every later one is charged.
func Call(ctx context.Context) {
	if m, ok := ctx.Value(meterKey{}).(*meter); ok && m.calls.Add(1) > 1 {
		m.charge(1)
	}
}
