// Package reqid carries the request id through a request's context, so the
// log line, the X-Request-Id header and v2's "@extra" show the same id.
package reqid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

type key struct{}

// New makes a random id.
func New() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// With stores id in ctx.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, key{}, id)
}

// From returns the id of the request, or "" outside a request.
func From(ctx context.Context) string {
	id, _ := ctx.Value(key{}).(string)
	return id
}
