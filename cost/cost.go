// Package cost is the one place a request's cost is decided: the bounds
// every route inherits (work time, rows, bytes, offset, a get method's
// gas) and the units and rate-limit tokens of calls that are requests of
// their own (a JSON-RPC batch item, an emulation root field of GraphQL).
//
// The server starts a Budget for every request (Start); handlers and
// domain packages only ask it: Item before a call that is a request on its
// own, Spend after heavy work (a VM run, an emulation), and the bounds
// below when they size an answer. A new route declares its cost by calling
// these, and gets the bounds without rediscovering them
// (docs/OPERATIONS.md, "One cost model").
package cost

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/tonql/tonql/apperr"
)

// Defaults of the settings (README's configuration table).
const (
	// DefaultWork is the time a request's heavy work may take in all: a
	// batch shares it, and no call starts once it is spent, so a request
	// ends within about one call's time past it (a get method at the gas
	// limit is 0.1-0.25 s of CPU on a small machine).
	DefaultWork = 750 * time.Millisecond
	// DefaultGetMethodGas bounds one get method's gas, as lite servers
	// bound theirs.
	DefaultGetMethodGas = 1_000_000
)

// Bounds of one answer, the same for every route and dialect.
const (
	// MaxOffset is the deepest offset a list accepts: every skipped row
	// is read and dropped by the database (offset 390,000 cost about 1 s
	// of Postgres time). Past it, clients page by cursor.
	MaxOffset = 10_000
	// MaxRows bounds the rows of one answer: a page's actions plus the
	// transactions it shows with them (include_transactions, about 16 KB
	// of JSON each: 1,000 actions with theirs were an 80 MB answer).
	MaxRows = 1_000
	// MaxAnswerBytes bounds the JSON of one answer; a larger one is refused
	// (the client asks for a smaller page) rather than sent.
	MaxAnswerBytes = 16 << 20
)

// Limits are the settings of the model.
type Limits struct {
	// Work is the budget of heavy work per request (REQUEST_WORK_BUDGET);
	// 0 = DefaultWork, negative = none.
	Work time.Duration
}

// Admitter charges the key of a request for a call that is a request of
// its own: Take takes one rate-limit token before the call (false: the key
// is over its limit, retry after wait), Count counts units once the call
// is answered.
type Admitter interface {
	Take() (ok bool, wait time.Duration, limit string)
	Count(n int)
}

// Budget is one request's account. Its methods are safe for concurrent
// use (GraphQL resolves root fields at once) and on a nil Budget (work
// outside a request: import, tests) they bound nothing and charge nothing.
type Budget struct {
	limit time.Duration
	admit Admitter

	mu      sync.Mutex
	spent   time.Duration
	items   int
	refused bool
}

type budgetKey struct{}

// Start begins the budget of a request; admit is nil for a request
// without a key (nothing to charge).
func Start(ctx context.Context, l Limits, admit Admitter) context.Context {
	w := l.Work
	if w == 0 {
		w = DefaultWork
	}
	return context.WithValue(ctx, budgetKey{}, &Budget{limit: w, admit: admit})
}

// From is the request's budget, nil outside a request.
func From(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// Spend records heavy work the request did (the time of a VM run or an
// emulation, which are CPU-bound).
func Spend(ctx context.Context, d time.Duration) {
	if b := From(ctx); b != nil {
		b.mu.Lock()
		b.spent += d
		b.mu.Unlock()
	}
}

// Spent is the heavy work recorded so far.
func (b *Budget) Spent() time.Duration {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// errBudget is the error of a call that did not start because its
// request's budget ran out: the client sends it again in a request of its
// own.
func errBudget(why string) *apperr.Error {
	return apperr.New(apperr.OverBudget, "not run: the request's %s; send this call in another request", why)
}

// Item admits a call that is a request of its own, before its work
// starts: it fails when the request's work budget or time is spent (the
// call did not run) or when the key has no token left for it (calls after
// the first take one each; the first is the request's own). done is
// called with the call's error once it is answered and counts its unit,
// unless the server failed to answer it (a 5xx kind).
func Item(ctx context.Context) (done func(error), err error) {
	b := From(ctx)
	if b == nil {
		return func(error) {}, nil
	}
	if ctx.Err() != nil {
		return nil, errBudget("time ran out before this call")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit > 0 && b.spent >= b.limit {
		return nil, errBudget("work budget (" + b.limit.String() + " of emulation and get methods) ran out before this call")
	}
	b.items++
	if b.items == 1 || b.admit == nil {
		return func(error) {}, nil // the request's own unit covers it
	}
	if b.refused {
		return nil, apperr.New(apperr.RateLimited, "rate limit exceeded: this call and the ones after it were not run")
	}
	ok, wait, limit := b.admit.Take()
	if !ok {
		b.refused = true // the calls after it are refused too: a batch is answered in order
		return nil, apperr.New(apperr.RateLimited, "rate limit exceeded: %s; retry after %s; this call and the ones after it were not run",
			limit, wait.Round(time.Millisecond))
	}
	return func(err error) {
		// A call the budget stopped (cost.Afford) did not run either.
		if e := apperr.From(err); err == nil || e.Kind != apperr.OverBudget && e.Kind.Info().HTTPStatus < 500 {
			b.admit.Count(1)
		}
	}, nil
}

// GraphQLItem tells the GraphQL root fields that are each a request of
// their own (each runs the emulator or calls out: a unit, a token and a share of the
// budget per field, so 30 aliases cost what 30 JSON-RPC calls cost). A new
// root field that does heavy work is declared here. Every JSON-RPC call of
// a batch is an item too (rest.JSONRPC).
func GraphQLItem(field string) bool {
	switch field {
	case "estimateFee", "emulateMessage", "emulateTonConnect":
		return true
	case "testWebhook": // a request to the receiver, up to WEBHOOK_TIMEOUT
		return true
	}
	return false
}

// minGas is the least gas a call is started with: below it the budget
// is spent, not merely low.
const minGas = 10_000

// Gas is the gas a get method may use in this request: full (the gas
// limit) for the request's first heavy work, else what the budget left
// pays for at nsPerGas (what a unit of gas took lately; 0: unknown, full).
// A call that then runs out of the reduced gas did not finish within the
// budget: the caller answers BudgetSpent, not its exit code, so a batch
// stops at the budget and cheap calls after an expensive one still run.
func Gas(ctx context.Context, full int64, nsPerGas float64) (int64, error) {
	b := From(ctx)
	if b == nil || b.limit <= 0 || nsPerGas <= 0 {
		return full, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent == 0 {
		return full, nil
	}
	left := float64(b.limit-b.spent) / nsPerGas
	if left < minGas {
		return 0, errBudget("work budget (" + b.limit.String() + " of emulation and get methods) ran out before this call")
	}
	return min(full, int64(left)), nil
}

// BudgetSpent is the error of a get method that ran out of the gas its
// request's budget left it (Gas).
func BudgetSpent(ctx context.Context) error {
	limit := time.Duration(0)
	if b := From(ctx); b != nil {
		limit = b.limit
	}
	return errBudget("work budget (" + limit.String() + " of emulation and get methods) ran out during this call")
}

// Rows admits an answer of actions rows that also shows extra rows (their
// transactions) before the extra rows are read.
func Rows(actions, extra int) error {
	if actions+extra > MaxRows {
		return apperr.Field("limit", "this page of %d actions shows %d transactions with include_transactions; "+
			"an answer holds at most %d rows (actions and their transactions): ask for fewer actions per page",
			actions, extra, MaxRows)
	}
	return nil
}

// Bytes admits an answer of n bytes of JSON.
func Bytes(n int) error {
	if n > MaxAnswerBytes {
		return apperr.Field("limit", "the answer would be %d bytes, over the limit of %d: ask for fewer rows per page", n, MaxAnswerBytes)
	}
	return nil
}

// Work runs heavy work (a VM run, an emulation and its trace) and spends
// the CPU time it took on the request's budget, measured on its own OS
// thread (the goroutine is locked to it meanwhile, and the emulator's C++
// runs there too), so a loaded machine does not make a request look
// dearer than it is; wall time where the thread's time is unknown. It
// returns the time spent.
func Work(ctx context.Context, f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	c0, ok := threadCPU()
	f()
	took := time.Since(start)
	if c1, ok1 := threadCPU(); ok && ok1 {
		took = time.Duration(c1 - c0)
	}
	Spend(ctx, took)
	return took
}

// MaxPoints bounds the intervals one analytics series spans (candles,
// volumes, a rates chart): a year of 1h candles (8,760) fits. A point is a
// small row read in primary-key order, about 250 bytes of JSON, so a full
// series is some 2.5 MB and one index range scan.
const MaxPoints = 10_000

// Points admits a series of n intervals; field is the parameter that sets
// the range's far end.
func Points(field string, n int64) error {
	if n > MaxPoints {
		return apperr.Field(field, "the range holds %d intervals; a series holds at most %d: narrow the range or choose a wider interval", n, MaxPoints)
	}
	return nil
}
