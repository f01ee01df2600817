package fees

import (
	"context"
	"errors"
	"sync"

	"github.com/tonql/tonql/chain"
)

// accountReads lets concurrent estimates that need the same account share
// one source read instead of each issuing its own. Under load many requests
// ask for the same few accounts (one popular wallet, one DEX pool), and
// for a cache hit the store read is most of the work. A caller joining a
// read in flight gets a state read during its own call, so answers are as
// fresh as with a read of its own; nothing is kept after the read ends.
type accountReads struct {
	mu    sync.Mutex
	calls map[string]*accountRead
}

type accountRead struct {
	done   chan struct{}
	joined int                 // callers sharing this read (under accountReads.mu)
	st     *chain.AccountState // shared read-only by every caller
	err    error
}

func (a *accountReads) do(ctx context.Context, addr string, read func(context.Context) (*chain.AccountState, error)) (*chain.AccountState, error) {
	a.mu.Lock()
	if c, ok := a.calls[addr]; ok {
		c.joined++
		a.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c.err != nil && ctx.Err() == nil && (errors.Is(c.err, context.Canceled) || errors.Is(c.err, context.DeadlineExceeded)) {
			return read(ctx) // the leader's request ended, ours did not
		}
		return c.st, c.err
	}
	if a.calls == nil {
		a.calls = map[string]*accountRead{}
	}
	c := &accountRead{done: make(chan struct{}), err: errors.New("account read failed")}
	a.calls[addr] = c
	a.mu.Unlock()

	defer func() { // even if read panics, waiters must not hang
		a.mu.Lock()
		delete(a.calls, addr)
		a.mu.Unlock()
		close(c.done)
	}()
	c.st, c.err = read(ctx)
	return c.st, c.err
}
