package server

import (
	"context"
	"net/http"
	"time"

	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/store"
)

// keyAdmitter charges an accepted key for the calls of its request that
// are requests of their own (cost.Item): a token each before the call, a
// unit each once it is answered.
type keyAdmitter struct {
	a *Access
	k *store.APIKey
}

func (ka keyAdmitter) Take() (bool, time.Duration, string) {
	if ka.a.Limiter == nil {
		return true, 0, ""
	}
	lim := ka.a.limitOf(ka.k)
	ok, wait := ka.a.Limiter.Allow(ka.k.ID, lim)
	return ok, wait, describeLimit(lim)
}

func (ka keyAdmitter) Count(n int) {
	if ka.a.Meter != nil {
		ka.a.Meter.CountN(ka.k.ID, int64(n))
	}
}

type admitterKey struct{}

// withBudget starts the cost budget of every request (cost.Start), with
// the key's admitter when guard accepted one.
func withBudget(l cost.Limits, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		adm, _ := r.Context().Value(admitterKey{}).(cost.Admitter)
		next.ServeHTTP(w, r.WithContext(cost.Start(r.Context(), l, adm)))
	})
}

func withAdmitter(ctx context.Context, a *Access, k *store.APIKey) context.Context {
	return context.WithValue(ctx, admitterKey{}, cost.Admitter(keyAdmitter{a: a, k: k}))
}

// countUnit counts the request's own unit once its answer is known: an
// answer the server failed to give (5xx: a database outage, a timeout of
// its own) costs nothing. A client that hung up is charged (the work was
// done).
func (a *Access) countUnit(k *store.APIKey, status int) {
	if a.Meter != nil && status < 500 {
		a.Meter.Count(k.ID)
	}
}
