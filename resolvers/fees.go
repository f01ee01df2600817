package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/fees"
)

// EstimateFee validates the params and runs the estimate. GraphQL's
// estimateFee, POST /api/v2/estimateFee and the JSON-RPC method all end here.
func (r *Resolver) EstimateFee(ctx context.Context, p fees.Params) (*fees.Result, error) {
	if r.Fees == nil {
		return nil, apperr.New(apperr.Unavailable, "fee estimation is not configured on this server")
	}
	req, err := fees.ParseParams(p)
	if err != nil {
		return nil, err
	}
	return r.Fees.Estimate(ctx, req)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
