// Package reqcost lets a handler charge the key of its request for work
// beyond one call, such as the other calls of a JSON-RPC batch: the key
// middleware charges one unit and one rate-limit token per request, and
// puts a Charger in the context for the rest.
package reqcost

import "context"

// Charger charges the request's key for extra calls.
type Charger func(extra int)

type chargerKey struct{}

// With puts c in ctx.
func With(ctx context.Context, c Charger) context.Context {
	return context.WithValue(ctx, chargerKey{}, c)
}

// Charge charges the request's key for extra calls; requests without a key
// (bare routes) cost nothing.
func Charge(ctx context.Context, extra int) {
	if c, ok := ctx.Value(chargerKey{}).(Charger); ok && extra > 0 {
		c(extra)
	}
}
