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
	bulk := flag.Bool("bulk", true, "Postgres: drop the action tables' secondary indexes while loading and build them once at the end")
	flag.Parse()
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
		HotActions: *hotActions, StartUtime: 1_760_000_000}, *batch, *bulk); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(dbURL string, p synth.Params, batchSize int, bulk bool) error {
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	restore := func(context.Context) error { return nil }
	if bulk {
		if restore, err = st.DeferIndexes(ctx); err != nil {
			return err
		}
		// A load that fails half way still leaves a usable database.
		rebuilt := false
		defer func() {
			if !rebuilt {
				_ = restore(ctx)
			}
		}()
		inner := restore
		restore = func(ctx context.Context) error { rebuilt = true; return inner(ctx) }
	}
	start := time.Now()
	if err := loadDirectory(ctx, st, p, batchSize); err != nil {
		return err
	}
	fmt.Printf("address book: %d accounts in %s\n", p.Accounts+p.HotAccounts, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	b := &store.Batch{}
	done := 0
	flush := func() error {
		if err := st.SaveBatch(ctx, b); err != nil {
			return err
		}
		done += len(b.Actions)
		b.Actions = b.Actions[:0]
		el := time.Since(start).Seconds()
		fmt.Printf("\r%d/%d actions, %.0f/s   ", done, p.Actions, float64(done)/el)
		return nil
	}
	err = synth.Generate(p, func(a *chain.Action) error {
		b.Actions = append(b.Actions, *a)
		if len(b.Actions) >= batchSize {
			return flush()
		}
		return nil
	})
	if err == nil && len(b.Actions) > 0 {
		err = flush()
	}
	if err != nil {
		return err
	}
	fmt.Printf("\nloaded %d actions in %s\n", done, time.Since(start).Round(time.Second))
	start = time.Now()
	if err := restore(ctx); err != nil {
		return err
	}
	fmt.Printf("indexes built in %s\nhot accounts:\n", time.Since(start).Round(time.Second))
	for i := 0; i < p.HotAccounts; i++ {
		fmt.Println(" ", synth.HotAccount(p.Seed, i))
	}
	if st.IsPostgres() {
		_, err = st.DB().ExecContext(ctx, "ANALYZE")
	}
	return err
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
