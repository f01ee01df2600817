package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tonql/tonql/store"
)

// runPartitions is `tonql partitions [list]` and `tonql partitions detach
// -before LT`: the operator's side of the lt partitions of Postgres
// (docs/OPERATIONS.md#partitions), which the SQL there does by hand.
func runPartitions(ctx context.Context, args []string, e *env) error {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "list", "detach":
	case "help":
		partitionsUsage(e.stdout)
		return errHelp
	default:
		partitionsUsage(e.stderr)
		return usageError{err: fmt.Errorf("unknown partitions command %q", sub)}
	}
	var fs *flags
	if sub == "list" {
		fs = newFlags(e, "partitions list", "tonql partitions list [flags]",
			"Lists the logical-time partitions of the Postgres tables that grow with the chain,\noldest first, with the rows the statistics last counted ('tonql partitions' alone does the same).")
	} else {
		fs = newFlags(e, "partitions detach", "tonql partitions detach -before LT [-dry-run] [flags]",
			"Detaches every span of partitions that ends at or below LT, of all four tables at once:\n"+
				"their actions leave every answer; the tables stay, to be archived or dropped.\n"+
				"Spans holding the newest stored transaction are never detached.")
	}
	cfg := bindConfig(fs, e, groupDatabase)
	var before *string
	var dryRun *bool
	if sub == "detach" {
		before = fs.String("before", "", "detach the spans that end at or below this logical time (required)")
		dryRun = fs.Bool("dry-run", false, "print what would be detached and change nothing")
	}
	if err := fs.parseAll(args, cfg); err != nil {
		return err
	}
	var lt uint64
	if sub == "detach" {
		var err error
		if lt, err = parseBefore(*before); err != nil {
			return usageError{err: err}
		}
	}
	st, err := openExisting(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if !st.Partitioned() {
		return errors.New("this database has no partitions (SQLite, or Postgres before 'tonql migrate')")
	}
	if sub == "list" {
		parts, err := st.Partitions(ctx)
		if err != nil {
			return err
		}
		return printPartitions(e, parts)
	}
	var names []string
	if *dryRun {
		parts, err := st.PartitionsEndingBy(ctx, lt)
		if err != nil {
			return err
		}
		for _, p := range parts {
			names = append(names, p.Name)
		}
	} else if names, err = st.DetachPartitionsBefore(ctx, lt); err != nil {
		return err
	}
	if len(names) == 0 {
		fmt.Fprintf(e.stdout, "no span ends at or below lt %d; nothing detached\n", lt)
		return nil
	}
	verb := "detached"
	if *dryRun {
		verb = "would detach"
	}
	fmt.Fprintf(e.stdout, "%s %d partitions ending at or below lt %d:\n", verb, len(names), lt)
	for _, n := range names {
		fmt.Fprintf(e.stdout, "  %s\n", n)
	}
	if !*dryRun {
		fmt.Fprintf(e.stdout, "their rows are out of every answer; archive them (pg_dump -t NAME) or drop them:\nDROP TABLE %s;\n",
			strings.Join(names, ", "))
	}
	return nil
}

// parseBefore reads -before: a logical time, required, above zero.
func parseBefore(s string) (uint64, error) {
	if s == "" {
		return 0, errors.New("partitions detach: -before LT is required")
	}
	lt, err := strconv.ParseUint(s, 10, 63) // the database's bigint
	if err != nil || lt == 0 {
		return 0, fmt.Errorf("-before: %q is not a logical time (an integer from 1 to %d)", s, int64(1<<63-1))
	}
	return lt, nil
}

func printPartitions(e *env, parts []store.Partition) error {
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tPARTITION\tFROM_LT\tTO_LT\tROWS")
	for _, p := range parts {
		rows := strconv.FormatInt(p.Estimate, 10)
		if p.Estimate < 0 {
			rows = "not analyzed"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", p.Table, p.Name, p.StartLt, p.EndLt, rows)
	}
	return tw.Flush()
}

func partitionsUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: tonql partitions <command> [flags]\n\ncommands:\n"+
		"  list                            the lt partitions, oldest first (the default)\n"+
		"  detach -before LT [-dry-run]    take the spans ending at or below LT out of the tables\n\n"+
		"Run 'tonql partitions <command> -h' for the flags of a command.")
}
