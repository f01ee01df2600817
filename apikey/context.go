package apikey

import "context"

type keyIDContext struct{}

// WithKeyID records in ctx the id of the key a request was accepted under,
// for what outlives the request's admission: a stream counts against its
// key's limit and ends when the key is revoked.
func WithKeyID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, keyIDContext{}, id)
}

// KeyID is the id WithKeyID recorded; "" for a bare route.
func KeyID(ctx context.Context) string {
	id, _ := ctx.Value(keyIDContext{}).(string)
	return id
}
