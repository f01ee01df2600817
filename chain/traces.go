package chain

import "sort"

// Assembler links transactions into traces as data arrives: file after
// file, block after block. A transaction's parent is the transaction that
// sent its in-message; a trace's root is the transaction with no known
// parent. Transactions of traces that are not complete yet stay in memory,
// so a later batch can extend them; an importer restarting from a store
// seeds them back with Seed.
//
// A trace is complete when its root consumed an external message (or no
// message: tick-tock) and every internal message sent inside it has been
// processed. A root whose in-message came from an unseen transaction keeps
// its trace pending: that parent may still arrive and absorb it.
type Assembler struct {
	groups  map[Hash]*group       // by root transaction hash
	groupOf map[Hash]*group       // transaction hash -> its group
	sentBy  map[Hash]*Transaction // internal message hash -> sender
	takenBy map[Hash]*Transaction // in-message hash -> receiver
	txs     map[Hash]*Transaction // every pending transaction
	touched map[*group]struct{}   // groups changed since the last emit
}

type group struct {
	root    *Transaction
	txs     []*Transaction
	emitted bool   // its current root id was handed out (or seeded) before
	merged  []Hash // ids of emitted traces this group absorbed
}

func NewAssembler() *Assembler {
	return &Assembler{
		groups:  map[Hash]*group{},
		groupOf: map[Hash]*group{},
		sentBy:  map[Hash]*Transaction{},
		takenBy: map[Hash]*Transaction{},
		txs:     map[Hash]*Transaction{},
		touched: map[*group]struct{}{},
	}
}

// Seed loads transactions of pending traces back (from the store). Their
// traces were already saved, so they are not emitted again until new data
// touches them.
func (a *Assembler) Seed(txs []*Transaction) {
	a.add(txs)
	for g := range a.touched {
		g.emitted = true
		g.merged = nil
	}
	clear(a.touched)
}

// Add feeds a batch and returns every trace the batch created or changed,
// complete or pending, each with TraceID set on all its transactions. A
// trace that absorbed earlier emitted ones lists their ids in Merged.
// Complete traces are forgotten; transactions seen again later start anew.
func (a *Assembler) Add(txs []*Transaction) []*Trace {
	a.add(txs)
	out := make([]*Trace, 0, len(a.touched))
	for g := range a.touched {
		t := a.build(g)
		out = append(out, t)
		g.emitted, g.merged = true, nil
		if t.Complete {
			a.forget(g)
		}
	}
	clear(a.touched)
	sort.Slice(out, func(i, j int) bool {
		if out[i].StartLt != out[j].StartLt {
			return out[i].StartLt < out[j].StartLt
		}
		return string(out[i].ID[:]) < string(out[j].ID[:])
	})
	return out
}

// Pending is the number of transactions held for incomplete traces.
func (a *Assembler) Pending() int { return len(a.txs) }

func (a *Assembler) add(txs []*Transaction) {
	var fresh []*Transaction
	for _, tx := range txs {
		if _, dup := a.txs[tx.Hash]; dup {
			continue
		}
		a.txs[tx.Hash] = tx
		g := &group{root: tx, txs: []*Transaction{tx}}
		a.groups[tx.Hash], a.groupOf[tx.Hash] = g, g
		a.touched[g] = struct{}{}
		if tx.InMsg != nil && !tx.InMsg.IsExternalIn() {
			a.takenBy[tx.InMsg.Hash] = tx
		}
		for i := range tx.OutMsgs {
			if m := &tx.OutMsgs[i]; m.Destination != "" {
				a.sentBy[m.Hash] = tx
			}
		}
		fresh = append(fresh, tx)
	}
	for _, tx := range fresh {
		if tx.InMsg != nil && !tx.InMsg.IsExternalIn() {
			if p := a.sentBy[tx.InMsg.Hash]; p != nil {
				a.merge(a.groupOf[tx.Hash], a.groupOf[p.Hash])
			}
		}
		for i := range tx.OutMsgs {
			if c := a.takenBy[tx.OutMsgs[i].Hash]; c != nil {
				a.merge(a.groupOf[c.Hash], a.groupOf[tx.Hash])
			}
		}
	}
}

// merge moves child (a group whose root's parent just appeared) into parent.
func (a *Assembler) merge(child, parent *group) {
	if child == parent {
		return
	}
	for _, tx := range child.txs {
		a.groupOf[tx.Hash] = parent
	}
	parent.txs = append(parent.txs, child.txs...)
	parent.merged = append(parent.merged, child.merged...)
	if child.emitted {
		parent.merged = append(parent.merged, child.root.Hash)
	}
	delete(a.groups, child.root.Hash)
	delete(a.touched, child)
	a.touched[parent] = struct{}{}
}

func (a *Assembler) forget(g *group) {
	for _, tx := range g.txs {
		delete(a.txs, tx.Hash)
		delete(a.groupOf, tx.Hash)
		if tx.InMsg != nil {
			delete(a.takenBy, tx.InMsg.Hash)
		}
		for i := range tx.OutMsgs {
			delete(a.sentBy, tx.OutMsgs[i].Hash)
		}
	}
	delete(a.groups, g.root.Hash)
}

func (a *Assembler) build(g *group) *Trace {
	in := make(map[Hash]bool, len(g.txs))
	for _, tx := range g.txs {
		in[tx.Hash] = true
	}
	root := g.root
	t := &Trace{
		ID: root.Hash, StartLt: root.Lt, EndLt: root.Lt,
		StartUtime: root.Utime, EndUtime: root.Utime,
		Transactions: len(g.txs), Merged: g.merged,
		Complete: root.InMsg == nil || root.InMsg.IsExternalIn(),
	}
	var walk func(tx *Transaction) *TraceNode
	walk = func(tx *Transaction) *TraceNode {
		tx.TraceID = root.Hash
		n := &TraceNode{Tx: tx}
		t.StartLt, t.EndLt = min(t.StartLt, tx.Lt), max(t.EndLt, tx.Lt)
		t.StartUtime, t.EndUtime = min(t.StartUtime, tx.Utime), max(t.EndUtime, tx.Utime)
		for i := range tx.OutMsgs {
			m := &tx.OutMsgs[i]
			if m.Destination == "" {
				continue
			}
			c := a.takenBy[m.Hash]
			if c == nil || !in[c.Hash] {
				t.Complete = false
				continue
			}
			n.Children = append(n.Children, walk(c))
		}
		return n
	}
	t.Root = walk(root)
	return t
}

// Transactions lists the trace's transactions, parents before children.
func (t *Trace) TransactionList() []*Transaction {
	out := make([]*Transaction, 0, t.Transactions)
	t.Root.Walk(func(n *TraceNode) bool {
		out = append(out, n.Tx)
		return true
	})
	return out
}

// TraceOf tells the trace id of a transaction the assembler holds (of an
// incomplete trace), and whether it holds it.
func (a *Assembler) TraceOf(tx Hash) (Hash, bool) {
	t, ok := a.txs[tx]
	if !ok {
		return Hash{}, false
	}
	return t.TraceID, true
}
