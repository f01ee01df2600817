package ingest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// Importer turns parsed files into store batches. It keeps the trace
// assembler across files, so a trace spread over several blocks is
// completed when its last part arrives, and what is known about contracts
// (from toncenter files) helps classify later traces.
type Importer struct {
	store *store.Store
	asm   *chain.Assembler
	known chain.KnownContracts
	// Tokens, when set, is called after each saved batch with the
	// accounts' states after it (the token registry: tokens.Registry).
	Tokens TokenHook
}

// TokenHook receives the states of accounts after a saved batch (each at
// its own last transaction) and the newest transaction lt of every
// account the batch's transactions touched.
type TokenHook func(ctx context.Context, states []chain.AccountState, touched map[string]uint64) error

// statesAfter are the states of p's accounts after its transactions: the
// replayed ones of a fee replay, else the states the file holds.
func statesAfter(p *Parsed) []chain.AccountState {
	if p.After != nil || p.AfterErr != nil {
		return p.After
	}
	return p.Accounts
}

// touchedBy is the newest transaction lt of each account among txs.
func touchedBy(txs []*chain.Transaction) map[string]uint64 {
	out := map[string]uint64{}
	for _, tx := range txs {
		if tx.Account != "" && tx.Lt > out[tx.Account] {
			out[tx.Account] = tx.Lt
		}
	}
	return out
}

// updateTokens runs the token hook on a saved batch; its failure leaves
// the batch saved (importing the file again runs it again).
func (im *Importer) updateTokens(ctx context.Context, states []chain.AccountState, b *store.Batch) error {
	if im.Tokens == nil || b == nil {
		return nil
	}
	if err := im.Tokens(ctx, states, touchedBy(b.Transactions)); err != nil {
		return fmt.Errorf("saved, but the token registry was not updated: %w", err)
	}
	return nil
}

// Stats counts what one file brought.
type Stats struct {
	Format string // of the file: "block", "config", "toncenter-trace", "fee-replay"
	// Transactions counts those written, with the earlier transactions of
	// the file's traces that are written again with them.
	Transactions, Traces, Complete, Actions, Accounts int
	// Of the file's own transactions and of Actions, how many the database
	// held before (importing a file again finds all of them); known only
	// after the file is saved.
	FileTransactions, TransactionsPresent, ActionsPresent int
	Config                                                bool // the file held a blockchain config
}

// fileRows names a file's own transactions and its actions, to count
// which were stored before it.
type fileRows struct {
	txs, actions []string
}

func rowsOf(p *Parsed, b *store.Batch) fileRows {
	r := fileRows{txs: make([]string, len(p.Transactions)), actions: make([]string, len(b.Actions))}
	for i, t := range p.Transactions {
		r.txs[i] = t.Hash.Base64()
	}
	for i := range b.Actions {
		r.actions[i] = b.Actions[i].ActionID
	}
	return r
}

// countPresent fills st's Present counts from what the save found.
func (r fileRows) countPresent(st *Stats, found *store.Present) {
	st.FileTransactions = len(r.txs)
	st.TransactionsPresent, st.ActionsPresent = 0, 0
	for _, h := range r.txs {
		if found.Transactions[h] {
			st.TransactionsPresent++
		}
	}
	for _, id := range r.actions {
		if found.Actions[id] {
			st.ActionsPresent++
		}
	}
}

func New(st *store.Store) *Importer {
	return &Importer{store: st, asm: chain.NewAssembler(), known: chain.KnownContracts{}}
}

// Resume seeds the assembler with the transactions of traces the store
// holds as incomplete, so new data can complete them.
func (im *Importer) Resume(ctx context.Context) (int, error) {
	txs, err := im.store.PendingTransactions(ctx)
	if err != nil {
		return 0, err
	}
	im.asm.Seed(txs)
	return len(txs), nil
}

// Batch assembles a parsed file into traces and actions. Every trace the
// file touched is written whole (its earlier transactions get the final
// trace id); traces it merged away are dropped.
func (im *Importer) Batch(p *Parsed) (*store.Batch, Stats) {
	b := &store.Batch{Accounts: p.Accounts, Config: p.Config}
	for addr, k := range p.Known {
		im.known[addr] = k
		if i := chain.KindInterface(k.Kind); i != "" {
			b.Interfaces = append(b.Interfaces, chain.AccountInterfaces{Address: addr, Interfaces: []string{i}})
		}
	}
	traces := im.asm.Add(p.Transactions)
	b.Traces = traces
	var merged []chain.Hash
	st := Stats{Format: p.Format, Traces: len(traces), Accounts: len(p.Accounts), Config: p.Config != nil}
	for _, tr := range traces {
		if tr.Complete {
			st.Complete++
		}
		b.Transactions = append(b.Transactions, tr.TransactionList()...)
		b.Actions = append(b.Actions, actions.Classify(tr, im.known)...)
		merged = append(merged, tr.Merged...)
	}
	b.DNS = actions.DNSNames(b.Actions)
	if len(merged) > 0 {
		b.Extra = store.DropTraces(merged)
	}
	st.Transactions, st.Actions = len(b.Transactions), len(b.Actions)
	return b, st
}

// ImportFile parses one file and saves it in one database transaction.
func (im *Importer) ImportFile(ctx context.Context, path string) (Stats, error) {
	p, err := ParseFile(path)
	if err != nil {
		return Stats{}, err
	}
	return im.save(ctx, path, p)
}

func (im *Importer) save(ctx context.Context, path string, p *Parsed) (Stats, error) {
	b, st := im.Batch(p)
	rows := rowsOf(p, b)
	b.Present = &store.Present{Lookup: rows.txs}
	if err := im.store.SaveBatch(ctx, b); err != nil {
		return Stats{}, fmt.Errorf("%s: save: %w", path, err)
	}
	rows.countPresent(&st, b.Present)
	if err := im.updateTokens(ctx, statesAfter(p), b); err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// parseAhead is how many files may be parsed, or being parsed, ahead of
// the one being saved. A group (see group) takes dozens of small files, and
// the parsers stop when they are this far ahead: at 4 the writer spent
// 0.25 s of a 0.6 s import waiting for them, at 16 0.16 s, for ~20 MB more.
const parseAhead = 16

// ImportFiles imports files in order, each whole in one database
// transaction, like ImportFile, but parses the next files while the current
// one is written, on every core: parsing is CPU work and saving mostly
// waits for the database, so the two overlap instead of adding up.
// Consecutive small files that share no row are written in one transaction
// (see group): the same end state for far fewer commits. A file is parsed
// whole before anything of it is written. report is called once per file,
// in order, with its error when it could not be parsed or saved (nothing of
// it is then written; a failed save fails the files written with it too)
// and the import goes on. Only a cancelled ctx stops it early, with ctx's
// error.
func (im *Importer) ImportFiles(ctx context.Context, files []string, report func(path string, s Stats, err error)) error {
	defer lessGC()()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	ready := parseAll(ctx, &wg, files)
	var g group
	flush := func() {
		var err error
		found := &store.Present{Lookup: []string{}}
		for _, f := range g.files {
			found.Lookup = append(found.Lookup, f.rows.txs...)
		}
		if g.batch != nil {
			g.batch.Present = found
			err = im.store.SaveBatch(ctx, g.batch)
			if err == nil {
				err = im.updateTokens(ctx, g.after, g.batch)
			}
		}
		for _, f := range g.files {
			switch {
			case f.err != nil:
				report(f.path, Stats{}, f.err)
			case err != nil:
				report(f.path, Stats{}, fmt.Errorf("%s: save: %w", f.path, err))
			default:
				f.rows.countPresent(&f.stats, found)
				report(f.path, f.stats, nil)
			}
		}
		g = group{}
	}
	for _, f := range files {
		r := ready()
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.err != nil {
			g.failed(f, r.err)
			continue
		}
		b, st := im.Batch(r.p)
		rows := rowsOf(r.p, b)
		after := statesAfter(r.p)
		if !g.join(f, b, st, rows, after) {
			flush()
			g.join(f, b, st, rows, after)
		}
		if g.full() {
			flush()
		}
	}
	flush()
	return nil
}

// importGCPercent is the GOGC an import runs with. Decoding blocks churns
// through short-lived cells while little stays live, so the collector ran
// often for nothing: at 400 instead of 100 an import of every fixture took
// a quarter less CPU (0.43 s to 0.31 s) for ~45 MB more memory.
const importGCPercent = 400

// lessGC raises GOGC to importGCPercent, unless set higher or off already,
// and returns the function that puts it back.
func lessGC() (restore func()) {
	prev := debug.SetGCPercent(importGCPercent)
	if prev < 0 || prev > importGCPercent {
		debug.SetGCPercent(prev)
	}
	return func() { debug.SetGCPercent(prev) }
}

// File is one file to import. Found marks a file met while walking a
// folder rather than named by the user: one of an unknown format is then
// skipped, not an error.
type File struct {
	Path  string
	Found bool
}

// Expand lists the importable files under the given paths (files as
// given, folders walked), in name order so imports are reproducible.
func Expand(paths []string) ([]File, error) {
	var out []File
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, File{Path: p})
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && importable(path) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		for _, f := range found {
			out = append(out, File{Path: f, Found: true})
		}
	}
	return out, nil
}

func importable(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".bin", ".boc", ".json":
		return true
	}
	return false
}

// Pending is the number of transactions held for incomplete traces.
func (im *Importer) Pending() int { return im.asm.Pending() }
