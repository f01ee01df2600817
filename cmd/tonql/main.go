// Command tonql is the whole product in one binary: `tonql serve` runs the
// API server; other subcommands migrate, import chain data and manage keys.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// env is what a subcommand may touch of the outside world, so tests can run
// subcommands in-process.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// progressEvery is how often import prints progress (0: every 2 s);
	// tests shorten it to see the lines of a long file.
	progressEvery time.Duration
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, e *env) error
}

func commands() []command {
	return []command{
		{"serve", "run the API server (GraphQL, REST, JSON-RPC)", runServe},
		{"migrate", "apply database migrations and exit", runMigrate},
		{"follow", "follow the chain from lite servers into the database", runFollow},
		{"keys", "manage API keys: create --name N, list, revoke KEY, usage KEY, limit KEY", runKeys},
		{"import", "import block BOCs, toncenter traces, fee-replay files or folders", runImport},
		{"partitions", "list the lt partitions of Postgres, or detach the old ones: list, detach -before LT", runPartitions},
		{"metadata", "make token metadata due now: refresh ADDRESS...", runMetadata},
		{"reclassify", "decode every stored trace again and replace its actions (after an upgrade)", runReclassify},
		{"analytics", "make the token analytics again from the stored actions: rebuild", runAnalytics},
		{"classify", "print the actions of one toncenter trace JSON", runClassify},
		{"version", "print the version of tonql, its build, Go and the TON emulator", runVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, e *env) int {
	switch {
	case len(args) == 0:
		usage(e.stderr)
		return 2
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		usage(e.stdout)
		return 0
	case args[0] == "--version" || args[0] == "-version":
		args = []string{"version"}
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], e)
			var bad usageError
			switch {
			case err == nil, errors.Is(err, errHelp):
				return 0
			case errors.As(err, &bad):
				// The flag package has printed its message already.
				if !bad.printed {
					fmt.Fprintf(e.stderr, "tonql %s: %v\n", c.name, err)
				}
				return 2
			}
			fmt.Fprintf(e.stderr, "tonql %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "tonql: unknown command %q\n\n", args[0])
	usage(e.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tonql <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'tonql <command> -h' for the flags of a command, 'tonql version' for the build.")
}
