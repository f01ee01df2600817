package store

import (
	"context"
	"sync/atomic"
	"time"
)

// QueryTime sums the time one request's statements held a Postgres
// connection: from sending each statement to closing its rows, as pgbench
// counts a statement's latency, without the wait for a pooled connection.
// The access log prints it beside the request's duration; the rest is the
// server's own (the pool's wait, parsing, rendering, writing, waiting for
// a CPU). The statements of one request may run on several goroutines.
// SQLite's statements are not timed.
type QueryTime struct {
	count atomic.Int64
	ns    atomic.Int64
}

type queryTimeKey struct{}

// WithQueryTime is ctx with a new QueryTime that every statement run under
// it adds to.
func WithQueryTime(ctx context.Context) (context.Context, *QueryTime) {
	q := &QueryTime{}
	return context.WithValue(ctx, queryTimeKey{}, q), q
}

// Totals are the statements counted so far and their summed time (none
// for a nil q).
func (q *QueryTime) Totals() (statements int64, took time.Duration) {
	if q == nil {
		return 0, 0
	}
	return q.count.Load(), time.Duration(q.ns.Load())
}

// startStatement starts timing a statement run under ctx; the returned
// func ends it (once). Without a QueryTime in ctx it costs one lookup.
func startStatement(ctx context.Context) (end func()) {
	q, _ := ctx.Value(queryTimeKey{}).(*QueryTime)
	if q == nil {
		return func() {}
	}
	start := time.Now()
	return func() {
		q.count.Add(1)
		q.ns.Add(int64(time.Since(start)))
	}
}
