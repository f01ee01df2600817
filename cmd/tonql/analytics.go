package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// runAnalytics serves `tonql analytics rebuild`: the token analytics made
// again from the stored actions (after a change of the counting rule; the
// rows are kept current on every write otherwise).
func runAnalytics(ctx context.Context, args []string, e *env) error {
	const usage = "tonql analytics rebuild [flags]"
	if len(args) == 0 || (args[0] != "rebuild" && args[0] != "-h" && args[0] != "--help") {
		fmt.Fprintf(e.stderr, "usage: %s\n", usage)
		return usageError{err: errors.New("give an analytics command: rebuild"), printed: true}
	}
	if args[0] == "rebuild" {
		args = args[1:]
	}
	fs := newFlags(e, "analytics rebuild", usage,
		"Makes every trade, candle and volume of the token analytics again from the stored actions, in one database transaction (readers of the analytics wait for it on Postgres).")
	cfg := bindConfig(fs, e, groupDatabase)
	if err := fs.parseAll(args, cfg); err != nil {
		return err
	}
	st, err := openExisting(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	trades, moves, err := st.RebuildAnalytics(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "rebuilt analytics from %d trades and %d jetton moves in %s\n", trades, moves, time.Since(start).Round(time.Millisecond))
	return nil
}
