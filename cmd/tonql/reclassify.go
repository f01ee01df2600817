package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tonql/tonql/ingest"
)

// runReclassify decodes every stored trace again with this binary's
// decoder and replaces the stored actions (after an upgrade).
func runReclassify(ctx context.Context, args []string, e *env) error {
	fs := newFlags(e, "reclassify", "tonql reclassify [flags]",
		"Decodes every stored trace again with this binary and replaces its actions (run it after an upgrade).")
	cfg := bindConfig(fs, e, groupDatabase)
	after := fs.String("after", "", "resume after this trace id (the last one a previous run printed)")
	if err := fs.parseAll(args, cfg); err != nil {
		return err
	}
	st, err := openStore(ctx, cfg, e)
	if err != nil {
		return err
	}
	defer st.Close()
	start, last := time.Now(), time.Now()
	var traces, acts int
	err = ingest.Reclassify(ctx, st, *after, func(t, a int, id string) {
		traces, acts = t, a
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			fmt.Fprintf(e.stderr, "reclassify: %d traces, %d actions, last trace %s\n", t, a, id)
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "reclassified %d traces into %d actions in %s\n", traces, acts, time.Since(start).Round(time.Millisecond))
	return nil
}
