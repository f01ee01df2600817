package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/tonql/tonql/ingest"
)

// runImport imports block BOCs, toncenter trace JSON and fee-replay JSON
// files (or folders of them). Each file is written whole in one database
// transaction (consecutive small files that share no row may share one, see
// ingest.ImportFiles); a malformed file is reported and skipped, nothing of
// it written, and the command fails at the end. So is a file of no format
// the importer knows, in a folder too. Only files of a kind known to hold
// no chain data (a decoded config JSON beside the blocks), met while
// walking a folder, are skipped with a notice; named explicitly, they fail.
func runImport(ctx context.Context, args []string, e *env) error {
	fs := newFlags(e, "import", "tonql import [flags] PATH...",
		"Imports files or folders of them: raw blocks and blockchain configs (.bin, .boc),\ntoncenter trace JSON and fee-replay JSON. Idempotent: importing a file again changes nothing.")
	cfg := bindConfig(fs, e, groupDatabase|groupNetwork)
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
	im.Tokens = stateHook(st, slog.Default(), cfg.Network == "testnet")
	seeded, err := im.Resume(ctx)
	if err != nil {
		return fmt.Errorf("load pending traces: %w", err)
	}
	var sum importSummary
	failed, skipped := 0, 0
	paths := make([]string, len(files))
	found := make(map[string]bool, len(files))
	for i, f := range files {
		paths[i], found[f.Path] = f.Path, f.Found
	}
	prog := newImportProgress(e.stderr, len(files), e.progressEvery)
	stop := prog.watch(im)
	err = im.ImportFiles(ctx, paths, func(path string, s ingest.Stats, err error) {
		switch {
		case err != nil && found[path] && errors.Is(err, ingest.ErrNoChainData):
			skipped++
			prog.printf("not imported (%v)\n", err)
		case err != nil:
			failed++
			prog.printf("skipped %v\n", err)
		default:
			sum.add(s)
		}
		prog.fileDone(sum.txs, sum.actions)
	})
	stop()
	if err != nil {
		return err
	}
	sum.actions, sum.actionsPresent = im.Actions()
	sum.actions += sum.actionsPresent
	sum.print(e.stdout)
	fmt.Fprintf(e.stdout, "traces: %d complete (%d pending transactions resumed, %d still pending)\n", sum.complete, seeded, im.Pending())
	if failed > 0 {
		return fmt.Errorf("%d of %d files could not be imported", failed, len(files))
	}
	return nil
}

// importSummary adds up the files of an import for its last lines.
type importSummary struct {
	files                       map[string]int // by format
	txs, txsPresent             int            // the files' own transactions
	actions, actionsPresent     int
	accounts, configs, complete int
}

func (s *importSummary) add(st ingest.Stats) {
	if s.files == nil {
		s.files = map[string]int{}
	}
	s.files[st.Format]++
	s.txs += st.FileTransactions
	s.txsPresent += st.TransactionsPresent
	s.actions += st.Actions // for the progress lines; the summary takes the importer's count
	s.accounts += st.Accounts
	s.complete += st.Complete
	if st.Config {
		s.configs++
	}
}

// print says what was new and what the database held already: importing
// the same files again reports everything as already present.
func (s *importSummary) print(w io.Writer) {
	n := 0
	var kinds []string
	for _, k := range []struct{ format, one, many string }{
		{"block", "block", "blocks"}, {"fee-replay", "fee-replay file", "fee-replay files"},
		{"toncenter-trace", "toncenter trace", "toncenter traces"}, {"config", "blockchain config", "blockchain configs"},
	} {
		if c := s.files[k.format]; c > 0 {
			n += c
			kinds = append(kinds, plural(c, k.one, k.many))
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "imported 0 files")
		return
	}
	fmt.Fprintf(w, "imported %s (%s)\n", plural(n, "file", "files"), strings.Join(kinds, ", "))
	fmt.Fprintf(w, "transactions: %d new, %d already present\n", s.txs-s.txsPresent, s.txsPresent)
	fmt.Fprintf(w, "actions: %d new, %d already present\n", s.actions-s.actionsPresent, s.actionsPresent)
	if s.accounts > 0 {
		fmt.Fprintf(w, "account states: %d (each kept only where newer than the stored one)\n", s.accounts)
	}
	if s.configs > 0 {
		fmt.Fprintf(w, "blockchain configs: %d stored\n", s.configs)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
