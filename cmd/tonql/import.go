package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tonql/tonql/ingest"
)

// runImport imports block BOCs, toncenter trace JSON and fee-replay JSON
// files (or folders of them). Each file is written whole in one database
// transaction (consecutive small files that share no row may share one, see
// ingest.ImportFiles); a malformed file is reported and skipped, nothing of
// it written, and the command fails at the end. Files of other formats met
// while walking a folder (a decoded config beside the blocks) are skipped
// with a notice and do not fail the run; named explicitly, they do.
func runImport(ctx context.Context, args []string, e *env) error {
	fs := newFlags(e, "import", "tonql import [flags] PATH...",
		"Imports files or folders of them: raw blocks and blockchain configs (.bin, .boc),\ntoncenter trace JSON and fee-replay JSON. Idempotent: importing a file again changes nothing.")
	cfg := bindConfig(fs, e, groupDatabase)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{err: errors.New("give the files or folders to import")}
	}
	if err := cfg.validate(); err != nil {
		return err
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
	failed, skipped, done := 0, 0, 0
	paths := make([]string, len(files))
	found := make(map[string]bool, len(files))
	for i, f := range files {
		paths[i], found[f.Path] = f.Path, f.Found
	}
	err = im.ImportFiles(ctx, paths, func(path string, s ingest.Stats, err error) {
		done++
		switch {
		case err != nil && found[path] && errors.Is(err, ingest.ErrUnknownFormat):
			skipped++
			fmt.Fprintf(e.stderr, "not imported (not a block, trace or fee-replay file): %s\n", path)
			return
		case err != nil:
			failed++
			fmt.Fprintf(e.stderr, "skipped %v\n", err)
			return
		}
		total.Transactions += s.Transactions
		total.Actions += s.Actions
		total.Accounts += s.Accounts
		total.Complete += s.Complete
		if time.Since(lastReport) > 2*time.Second || done == len(files) {
			lastReport = time.Now()
			fmt.Fprintf(e.stderr, "[%d/%d files] %d transactions, %d actions, %.0f tx/s\n",
				done, len(files), total.Transactions, total.Actions, float64(total.Transactions)/time.Since(start).Seconds())
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "imported %d files: %d transactions, %d actions, %d account states, %d complete traces (%d pending transactions resumed, %d still pending)\n",
		len(files)-failed-skipped, total.Transactions, total.Actions, total.Accounts, total.Complete, seeded, im.Pending())
	if failed > 0 {
		return fmt.Errorf("%d of %d files could not be imported", failed, len(files))
	}
	return nil
}
