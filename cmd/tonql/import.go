package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tonql/tonql/ingest"
)

// runImport imports block BOCs, toncenter trace JSON and fee-replay JSON
// files (or folders of them). Each file is written in one database
// transaction; a malformed file is reported and skipped, nothing of it
// written, and the command fails at the end.
func runImport(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	cfg := bindConfig(fs, e)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: tonql import [flags] PATH...  (files or folders: .bin/.boc blocks, toncenter trace or fee-replay .json)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no files given")
	}
	files, err := ingest.Expand(fs.Args())
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg, e)
	if err != nil {
		return err
	}
	defer st.Close()
	im := ingest.New(st)
	seeded, err := im.Resume(ctx)
	if err != nil {
		return fmt.Errorf("load pending traces: %w", err)
	}
	start, lastReport := time.Now(), time.Now()
	var total ingest.Stats
	failed := 0
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := im.ImportFile(ctx, f)
		if err != nil {
			failed++
			fmt.Fprintf(e.stderr, "skipped %v\n", err)
			continue
		}
		total.Transactions += s.Transactions
		total.Actions += s.Actions
		total.Accounts += s.Accounts
		total.Complete += s.Complete
		if time.Since(lastReport) > 2*time.Second || i == len(files)-1 {
			lastReport = time.Now()
			fmt.Fprintf(e.stderr, "[%d/%d files] %d transactions, %d actions, %.0f tx/s\n",
				i+1, len(files), total.Transactions, total.Actions, float64(total.Transactions)/time.Since(start).Seconds())
		}
	}
	fmt.Fprintf(e.stdout, "imported %d files: %d transactions, %d actions, %d account states, %d complete traces (%d pending transactions resumed, %d still pending)\n",
		len(files)-failed, total.Transactions, total.Actions, total.Accounts, total.Complete, seeded, im.Pending())
	if failed > 0 {
		return fmt.Errorf("%d of %d files could not be imported", failed, len(files))
	}
	return nil
}
