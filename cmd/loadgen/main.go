// Command loadgen fills a database with generated actions for load tests
// (docs/PERFORMANCE.md). It is a development tool: the product never serves
// generated data, and the server binary cannot produce it.
//
//	go run ./cmd/loadgen -database-url postgres://... -actions 1000000 -hot 3 -hot-actions 100000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/store"
)

func main() {
	dbURL := flag.String("database-url", os.Getenv("DATABASE_URL"), "target database")
	n := flag.Int("actions", 1_000_000, "actions to generate")
	accounts := flag.Int("accounts", 200_000, "ordinary accounts")
	hot := flag.Int("hot", 3, "hot accounts")
	hotActions := flag.Int("hot-actions", 100_000, "actions per hot account")
	seed := flag.Uint64("seed", 1, "generator seed")
	batch := flag.Int("batch", 5000, "actions per database transaction")
	doExplain := flag.Bool("explain", false, "print the query plans of every filter shape instead of loading")
	pgbenchDir := flag.String("pgbench", "", "write pgbench scripts of the measured pages' SQL into this folder instead of loading")
	bulk := flag.Bool("bulk", true, "Postgres: drop the action tables' indexes while loading and build them once at the end; into empty tables, COPY rows straight in")
	workers := flag.Int("workers", 2, "connections loading at once (a direct bulk load only)")
	tokens := flag.Int("tokens", 0, "Postgres: fill the token registry with this many generated jetton wallets and NFT items instead of loading actions")
	capture := flag.String("capture", "", "serve this path (e.g. /api/v3/jetton/wallets?owner_address=...) in process twice and write the SQL of the second request to -capture-out")
	captureOut := flag.String("capture-out", "page.sql", "the pgbench script -capture writes")
	swapWeight := flag.Int("swap-weight", 0, "the swaps' weight in the type mix of 100 (0: synth's 6; 11 makes about 1M swaps of 10M actions)")
	seconds := flag.Uint("seconds", 0, "spread the actions over this many seconds, lts growing as mainnet's (0: about a second per four traces; 31536000: a year)")
	tracesEvery := flag.Int("traces-every", 1, "write the transactions, messages and trace of one trace in N (and of every trace of the first hot account), as an import of trace JSON does; 0: none (at 10M actions all of them add ~38 GB)")
	openURL := flag.String("open-loop", "", "instead of loading: GET this URL at -rate requests a second (Poisson arrivals, as pgbench -R) for -duration and print \"sent/s p50_ms p99_ms failed requests\"")
	rate := flag.Float64("rate", 500, "-open-loop's mean requests a second")
	duration := flag.Duration("duration", 10*time.Second, "-open-loop's run time")
	flag.Parse()
	if *openURL != "" {
		if err := runOpenLoop(*openURL, *rate, *duration, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *tokens > 0 || *capture != "" {
		var err error
		if *tokens > 0 {
			err = loadTokens(context.Background(), *dbURL, *tokens)
		}
		if err == nil && *capture != "" {
			err = captureSQL(context.Background(), *dbURL, *capture, *captureOut)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *pgbenchDir != "" {
		if err := writePgbench(context.Background(), *dbURL, *seed, *pgbenchDir); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if *doExplain {
		if err := explain(context.Background(), *dbURL, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dbURL, synth.Params{Seed: *seed, Actions: *n, Accounts: *accounts, HotAccounts: *hot,
		HotActions: *hotActions, StartUtime: 1_760_000_000, SwapWeight: *swapWeight, Seconds: uint32(*seconds)},
		*batch, *workers, *bulk, *tracesEvery); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(dbURL string, p synth.Params, batchSize, workers int, bulk bool, tracesEvery int) error {
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	// chain is what a batch writes besides its actions: nothing, or their
	// transactions, messages and traces.
	chainRows := func([]chain.Action) ([]*chain.Transaction, []*chain.Trace) { return nil, nil }
	if tracesEvery > 0 {
		chainRows = func(actions []chain.Action) ([]*chain.Transaction, []*chain.Trace) {
			return synth.Chain(sampleTraces(actions, tracesEvery, synth.HotAccount(p.Seed, 0)))
		}
	}
	save := func(ctx context.Context, actions []chain.Action) error {
		txs, traces := chainRows(actions)
		return st.SaveBatch(ctx, &store.Batch{Actions: actions, Transactions: txs, Traces: traces})
	}
	finish := func(context.Context) error { return nil }
	rollups := false // the load wrote no analytics rollups: rebuilt at the end
	if bulk {
		bl, err := st.BeginBulkLoad(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("bulk load: indexes dropped until the end; rows by COPY straight into the tables: %v\n", bl.Direct())
		save = func(ctx context.Context, actions []chain.Action) error {
			txs, traces := chainRows(actions)
			return bl.SaveTraces(ctx, actions, txs, traces)
		}
		finished := false
		finish = func(ctx context.Context) error { finished = true; return bl.Finish(ctx, workers) }
		// A load that fails half way still leaves a usable database.
		defer func() {
			if !finished {
				_ = bl.Finish(ctx, workers)
			}
		}()
		rollups = bl.Direct()
		if !bl.Direct() {
			workers = 1 // SaveBatch writers commit one at a time anyway (store/seq.go)
		}
	}
	start := time.Now()
	if err := loadDirectory(ctx, st, p, batchSize); err != nil {
		return err
	}
	fmt.Printf("address book: %d accounts in %s\n", p.Accounts+p.HotAccounts, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	done, err := loadActions(ctx, p, batchSize, workers, save, func(done int) {
		el := time.Since(start).Seconds()
		fmt.Printf("\r%d/%d actions, %.0f/s   ", done, p.Actions, float64(done)/el)
	})
	if err != nil {
		return err
	}
	fmt.Printf("\nloaded %d actions in %s on %d connections\n", done, time.Since(start).Round(time.Second), workers)
	start = time.Now()
	if err := finish(ctx); err != nil {
		return err
	}
	fmt.Printf("indexes built in %s\n", time.Since(start).Round(time.Second))
	if rollups {
		// COPY straight into the tables keeps no token analytics; the
		// rebuild makes them as SaveBatch would have (store/analyticsrebuild.go).
		start = time.Now()
		trades, moves, err := st.RebuildAnalytics(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("analytics rebuilt from %d trades and %d jetton moves in %s\n", trades, moves, time.Since(start).Round(time.Second))
	}
	fmt.Println("hot accounts:")
	for i := 0; i < p.HotAccounts; i++ {
		fmt.Println(" ", synth.HotAccount(p.Seed, i))
	}
	if st.IsPostgres() {
		_, err = st.DB().ExecContext(ctx, "ANALYZE")
	}
	return err
}

// loadActions generates the actions on this goroutine and saves them in
// batches on workers others, returning how many were saved.
func loadActions(ctx context.Context, p synth.Params, batchSize, workers int,
	save func(context.Context, []chain.Action) error, progress func(done int)) (int, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	batches := make(chan []chain.Action, workers)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if err := save(ctx, b); err != nil {
					cancel(err)
					return
				}
				mu.Lock()
				done += len(b)
				progress(done)
				mu.Unlock()
			}
		}()
	}
	send := func(b []chain.Action) error {
		select {
		case batches <- b:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	batch := make([]chain.Action, 0, batchSize)
	err := synth.Generate(p, func(a *chain.Action) error {
		// A batch is cut between traces, never inside one: a trace's
		// row and transactions are written with all its actions.
		if len(batch) >= batchSize && batch[len(batch)-1].TraceID != a.TraceID {
			if err := send(batch); err != nil {
				return err
			}
			batch = make([]chain.Action, 0, batchSize+1)
		}
		batch = append(batch, *a)
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = send(batch)
	}
	close(batches)
	wg.Wait()
	if err == nil {
		err = context.Cause(ctx) // a worker's error; nil when none failed
	}
	return done, err
}

// loadDirectory fills what the address book reads (account states, their
// interfaces, .ton names) for every generated account.
func loadDirectory(ctx context.Context, st *store.Store, p synth.Params, batchSize int) error {
	b := &store.Batch{}
	flush := func() error {
		err := st.SaveBatch(ctx, b)
		b.Accounts, b.DNS = b.Accounts[:0], b.DNS[:0]
		return err
	}
	err := synth.Directory(p, func(a chain.AccountState, d *chain.DNSName) error {
		b.Accounts = append(b.Accounts, a)
		if d != nil {
			b.DNS = append(b.DNS, *d)
		}
		if len(b.Accounts) >= batchSize {
			return flush()
		}
		return nil
	})
	if err == nil && len(b.Accounts) > 0 {
		err = flush()
	}
	return err
}
