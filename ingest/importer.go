package ingest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// Importer turns parsed files into store batches. It keeps the trace
// assembler across files, so a trace spread over several blocks is
// completed when its last part arrives.
type Importer struct {
	store *store.Store
	asm   *chain.Assembler
	// known is what files of this run said about the accounts of their
	// traces, by trace id (base64), for a trace a later file extends
	// before the store holds it.
	known map[string]chain.KnownContracts
	count *runCount
	act   activity
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

// TokensAfter runs the token hook on b, a batch Batch made of p, once it
// is saved: the follower's path to what ImportFile does.
func (im *Importer) TokensAfter(ctx context.Context, p *Parsed, b *store.Batch) error {
	return im.updateTokens(ctx, statesAfter(p), b)
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

// fileRows names a file's own transactions and its actions (with their
// traces), to count which were stored before it; traces are those it
// wrote, held the incomplete ones it touched without writing (runCount).
type fileRows struct {
	txs, actions, actionTraces []string
	traces                     []traceOut
	held                       []string
}

func rowsOf(p *Parsed, b *store.Batch, held []string) fileRows {
	r := fileRows{txs: make([]string, len(p.Transactions)), actions: make([]string, len(b.Actions)),
		actionTraces: make([]string, len(b.Actions)), held: held}
	for i, t := range p.Transactions {
		r.txs[i] = t.Hash.Base64()
	}
	for i := range b.Actions {
		r.actions[i], r.actionTraces[i] = b.Actions[i].ActionID, b.Actions[i].TraceID
	}
	for _, tr := range b.Traces {
		o := traceOut{id: tr.ID.Base64(), complete: tr.Complete}
		for _, m := range tr.Merged {
			o.merged = append(o.merged, m.Base64())
		}
		r.traces = append(r.traces, o)
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
	return &Importer{store: st, asm: chain.NewAssembler(), known: map[string]chain.KnownContracts{}, count: newRunCount()}
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
// trace id); traces it merged away are dropped. A trace is classified with
// what files said about its accounts (store.Batch.Known: the earlier
// files' facts, stored or of this run, then this file's), and those facts
// are stored with it, so reclassify decodes it with the same input. Facts
// are never borrowed from another trace: the result must not depend on the
// order files were imported in. ctx bounds the one read of stored facts
// (none without a store).
func (im *Importer) Batch(ctx context.Context, p *Parsed) (*store.Batch, Stats, error) {
	b, st, _, err := im.batch(ctx, p)
	return b, st, err
}

// batch is Batch that also names the incomplete traces p touched without
// bringing them anything new (runCount).
func (im *Importer) batch(ctx context.Context, p *Parsed) (*store.Batch, Stats, []string, error) {
	b := &store.Batch{Accounts: p.Accounts, Config: p.Config, Blocks: p.Blocks}
	for _, addr := range sortedKeys(p.Known) {
		if i := chain.KindInterface(p.Known[addr].Kind); i != "" {
			b.Interfaces = append(b.Interfaces, chain.AccountInterfaces{Address: addr, Interfaces: []string{i}})
		}
	}
	held := heldTraces(im.asm, p.Transactions)
	traces := im.asm.Add(p.Transactions)
	stored, err := im.storedKnown(ctx, traces)
	if err != nil {
		return nil, Stats{}, nil, err
	}
	written := map[string]bool{}
	for _, tr := range traces {
		written[tr.ID.Base64()] = true
		for _, m := range tr.Merged {
			written[m.Base64()] = true
		}
	}
	held = slices.DeleteFunc(held, func(id string) bool { return written[id] })
	b.Traces = traces
	var merged []chain.Hash
	st := Stats{Format: p.Format, Traces: len(traces), Accounts: len(p.Accounts), Config: p.Config != nil}
	for _, tr := range traces {
		if tr.Complete {
			st.Complete++
		}
		known := im.traceKnown(tr, stored, p.Known)
		b.Transactions = append(b.Transactions, tr.TransactionList()...)
		b.Actions = append(b.Actions, actions.Classify(tr, known)...)
		merged = append(merged, tr.Merged...)
	}
	b.DNS = actions.DNSNames(b.Actions)
	b.TokenMoves = actions.TokenMoves(b.Transactions)
	if len(merged) > 0 {
		b.Extra = store.DropTraces(merged)
	}
	for _, tr := range traces {
		if k := im.known[tr.ID.Base64()]; len(k) > 0 {
			if b.Known == nil {
				b.Known = map[string]chain.KnownContracts{}
			}
			b.Known[tr.ID.Base64()] = k
		}
	}
	st.Transactions, st.Actions = len(b.Transactions), len(b.Actions)
	return b, st, held, nil
}

// storedKnown reads the stored facts of the traces (and of the traces
// they absorbed) that this run has none for: a trace imported before,
// seen again or completed now.
func (im *Importer) storedKnown(ctx context.Context, traces []*chain.Trace) (map[string]chain.KnownContracts, error) {
	if im.store == nil {
		return nil, nil
	}
	var ids []string
	for _, tr := range traces {
		for _, h := range append([]chain.Hash{tr.ID}, tr.Merged...) {
			if _, ok := im.known[h.Base64()]; !ok {
				ids = append(ids, h.Base64())
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return im.store.TraceKnown(ctx, ids)
}

// traceKnown merges what is known about tr's accounts: of the traces it
// absorbed, then its own earlier facts, then the current file's (the
// newest word on an account wins), and keeps it for the run.
func (im *Importer) traceKnown(tr *chain.Trace, stored map[string]chain.KnownContracts, file chain.KnownContracts) chain.KnownContracts {
	out := chain.KnownContracts{}
	for _, h := range append(append([]chain.Hash{}, tr.Merged...), tr.ID) {
		id := h.Base64()
		k, ok := im.known[id]
		if !ok {
			k = stored[id]
		}
		for a, c := range k {
			out[a] = c
		}
		if h != tr.ID {
			delete(im.known, id)
		}
	}
	for a, c := range file {
		out[a] = c
	}
	if len(out) == 0 {
		return nil
	}
	im.known[tr.ID.Base64()] = out
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
	b, st, held, err := im.batch(ctx, p)
	if err != nil {
		return Stats{}, fmt.Errorf("%s: %w", path, err)
	}
	rows := rowsOf(p, b, held)
	b.Present = &store.Present{Lookup: rows.txs}
	if err := im.store.SaveBatch(ctx, b); err != nil {
		return Stats{}, fmt.Errorf("%s: save: %w", path, err)
	}
	rows.countPresent(&st, b.Present)
	if err := im.count.file(ctx, im.store, rows, b.Present); err != nil {
		return st, fmt.Errorf("%s: count actions: %w", path, err)
	}
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
	var countErr error
	flush := func() {
		var err error
		found := &store.Present{Lookup: []string{}}
		for _, f := range g.files {
			found.Lookup = append(found.Lookup, f.rows.txs...)
		}
		if g.batch != nil {
			g.batch.Present = found
			im.act.set(Activity{Stage: "saving", File: g.files[len(g.files)-1].path, Files: len(g.files), Transactions: len(g.batch.Transactions)})
			err = im.store.SaveBatch(ctx, g.batch)
			if err == nil {
				err = im.updateTokens(ctx, g.after, g.batch)
			}
			im.act.set(Activity{})
		}
		for _, f := range g.files {
			switch {
			case f.err != nil:
				report(f.path, Stats{}, f.err)
			case err != nil:
				report(f.path, Stats{}, fmt.Errorf("%s: save: %w", f.path, err))
			default:
				f.rows.countPresent(&f.stats, found)
				if err := im.count.file(ctx, im.store, f.rows, found); err != nil && countErr == nil {
					countErr = fmt.Errorf("%s: count actions: %w", f.path, err)
				}
				report(f.path, f.stats, nil)
			}
		}
		g = group{}
	}
	for _, f := range files {
		im.act.set(Activity{Stage: "parsing", File: f, Files: 1})
		r := ready()
		im.act.set(Activity{})
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.err != nil {
			g.failed(f, r.err)
			continue
		}
		b, st, held, err := im.batch(ctx, r.p)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			g.failed(f, fmt.Errorf("%s: %w", f, err))
			continue
		}
		rows := rowsOf(r.p, b, held)
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
	return countErr
}

// Actions counts the actions of the files imported so far, each once:
// those new to the database and those it held before the first file
// (Stats.ActionsPresent counts per file, where a trace spread over files
// is counted again by each).
func (im *Importer) Actions() (fresh, present int) { return im.count.totals() }

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
