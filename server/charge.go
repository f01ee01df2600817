package server

import (
	"context"

	"github.com/tonql/tonql/internal/reqcost"
	"github.com/tonql/tonql/store"
)

// withCharger lets the handler of an accepted request charge its key for
// the calls it makes beyond the first (a JSON-RPC batch): one unit and one
// rate-limit token each, as if each were a request (docs/OPERATIONS.md).
func (a *Access) withCharger(ctx context.Context, k *store.APIKey) context.Context {
	return reqcost.With(ctx, func(extra int) {
		if a.Limiter != nil {
			a.Limiter.Charge(k.ID, a.limitOf(k), extra)
		}
		if a.Meter != nil {
			a.Meter.CountN(k.ID, int64(extra))
		}
	})
}
