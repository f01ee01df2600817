package ingest

import (
	"context"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// runCount counts the actions of an import run's files once each: new
// (not stored when the run began) or already present. A file's stats
// alone cannot: a trace that grows over several files is written again
// by each (its actions, written by the first, read as present to the
// next), and a trace the store held incomplete is not written at all when
// a file brings none of its transactions anew (a re-import), so its
// actions went uncounted ("0 new, 1584 already present" of 2,057).
//
// Actions are counted per trace, at its last state in the run: a trace
// still incomplete stays open (its actions by id, each marked stored
// before the run or not); a complete one is added to the totals and
// forgotten, as the assembler forgets it, so memory is bounded by the
// incomplete traces the assembler holds anyway.
type runCount struct {
	open          map[string]map[string]bool // incomplete trace id -> action id -> stored before the run
	fresh, stored int                        // of the traces closed
}

// traceOut is a trace a file wrote: its id, whether complete, and the
// traces it absorbed.
type traceOut struct {
	id       string
	complete bool
	merged   []string
}

func newRunCount() *runCount { return &runCount{open: map[string]map[string]bool{}} }

// file counts one saved file: found is what its save found stored before
// it, held the incomplete traces it touched without writing them (read
// from st; their actions were all stored before the run).
func (c *runCount) file(ctx context.Context, st *store.Store, r fileRows, found *store.Present) error {
	byTrace := map[string][]string{}
	for i, id := range r.actions {
		byTrace[r.actionTraces[i]] = append(byTrace[r.actionTraces[i]], id)
	}
	for _, tr := range r.traces {
		seen := map[string]bool{}
		for _, id := range append(tr.merged, tr.id) {
			for a, before := range c.open[id] {
				seen[a] = before
			}
			delete(c.open, id)
		}
		cur := make(map[string]bool, len(byTrace[tr.id]))
		for _, a := range byTrace[tr.id] {
			before, ok := seen[a]
			if !ok {
				before = found.Actions[a]
			}
			cur[a] = before
		}
		if tr.complete {
			c.close(cur)
		} else {
			c.open[tr.id] = cur
		}
	}
	var ask []string
	for _, id := range r.held {
		if _, ok := c.open[id]; !ok {
			ask = append(ask, id)
		}
	}
	if len(ask) == 0 || st == nil {
		return nil
	}
	stored, err := st.TraceActionIDs(ctx, ask)
	if err != nil {
		return err
	}
	for _, id := range ask {
		cur := map[string]bool{}
		for _, a := range stored[id] {
			cur[a] = true
		}
		c.open[id] = cur
	}
	return nil
}

func (c *runCount) close(acts map[string]bool) {
	for _, before := range acts {
		if before {
			c.stored++
		} else {
			c.fresh++
		}
	}
}

// totals are the run's actions so far: new, and stored before the run.
func (c *runCount) totals() (fresh, stored int) {
	fresh, stored = c.fresh, c.stored
	for _, acts := range c.open {
		for _, before := range acts {
			if before {
				stored++
			} else {
				fresh++
			}
		}
	}
	return fresh, stored
}

// heldTraces names the incomplete traces, held by asm, that txs touch
// without bringing anything new (every one of them held already).
func heldTraces(asm *chain.Assembler, txs []*chain.Transaction) []string {
	var out []string
	seen := map[chain.Hash]bool{}
	for _, tx := range txs {
		if id, ok := asm.TraceOf(tx.Hash); ok && !seen[id] {
			seen[id] = true
			out = append(out, id.Base64())
		}
	}
	return out
}
