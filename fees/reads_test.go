package fees

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tonql/tonql/chain"
)

// countingSource counts the reads that reach a real MemorySource.
type countingSource struct {
	*MemorySource
	configs, accounts atomic.Int64
	gate              chan struct{} // when set, account reads wait for it
}

func (c *countingSource) Config(ctx context.Context) (*chain.ChainConfig, error) {
	c.configs.Add(1)
	return c.MemorySource.Config(ctx)
}

func (c *countingSource) Account(ctx context.Context, addr string) (*chain.AccountState, error) {
	c.accounts.Add(1)
	if c.gate != nil {
		<-c.gate
	}
	return c.MemorySource.Account(ctx, addr)
}

func TestConfigReadOncePerMaxAge(t *testing.T) {
	r := loadReplay(t)
	src := &countingSource{MemorySource: r.source}
	est := r.estimator(Options{ConfigMaxAge: time.Hour}) // no wall-clock dependence
	est.src = src
	for _, x := range r.ext {
		if _, err := est.Estimate(context.Background(), x.request(t)); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.configs.Load(); n != 1 {
		t.Fatalf("config read %d times for %d estimates", n, len(r.ext))
	}

	est = r.estimator(Options{ConfigMaxAge: -1})
	src = &countingSource{MemorySource: r.source}
	est.src = src
	for _, x := range r.ext[:3] {
		if _, err := est.Estimate(context.Background(), x.request(t)); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.configs.Load(); n != 3 {
		t.Fatalf("ConfigMaxAge -1: config read %d times for 3 estimates", n)
	}
}

// TestAccountReadsShared: callers asking for one account while a read of
// it is in flight share that read; later callers read again.
func TestAccountReadsShared(t *testing.T) {
	r := loadReplay(t)
	addr := chain.RawAddress(r.ext[0].Account)
	src := &countingSource{MemorySource: r.source, gate: make(chan struct{})}
	var reads accountReads
	read := func(ctx context.Context) (*chain.AccountState, error) { return src.Account(ctx, addr) }
	var wg sync.WaitGroup
	results := make([]*chain.AccountState, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := reads.do(context.Background(), addr, read)
			if err != nil {
				t.Error(err)
			}
			results[i] = st
		}()
	}
	for joined(&reads, addr) < len(results)-1 { // one leader, the rest wait on it
		runtime.Gosched()
	}
	close(src.gate)
	wg.Wait()
	for _, st := range results {
		if st == nil || st.Address != addr {
			t.Fatalf("shared read returned %+v", st)
		}
	}
	if n := src.accounts.Load(); n != 1 {
		t.Fatalf("%d source reads for %d concurrent callers", n, len(results))
	}
	before := src.accounts.Load()
	if _, err := reads.do(context.Background(), addr, read); err != nil {
		t.Fatal(err)
	}
	if src.accounts.Load() != before+1 {
		t.Fatal("a read after the shared one ended was not made afresh")
	}
}

func TestAccountReadPanicReleasesWaiters(t *testing.T) {
	var reads accountReads
	gate := make(chan struct{})
	go func() {
		defer func() { _ = recover() }()
		_, _ = reads.do(context.Background(), "a", func(context.Context) (*chain.AccountState, error) {
			<-gate
			panic("source bug")
		})
	}()
	for joined(&reads, "a") < 0 { // the panicking read is in flight
		runtime.Gosched()
	}
	done := make(chan error, 1)
	go func() {
		_, err := reads.do(context.Background(), "a", func(context.Context) (*chain.AccountState, error) { return nil, nil })
		done <- err
	}()
	for joined(&reads, "a") < 1 {
		runtime.Gosched()
	}
	close(gate)
	if err := <-done; err == nil {
		t.Fatal("waiter of a panicked read got no error")
	}
}

// joined is how many callers wait on the read of addr in flight, -1 when
// there is none.
func joined(a *accountReads, addr string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.calls[addr]; ok {
		return c.joined
	}
	return -1
}
