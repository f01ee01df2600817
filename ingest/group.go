package ingest

import (
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// groupTransactions is the size up to which consecutive files share one
// database transaction. A small file (a toncenter trace holds ~10
// transactions) costs about as much in commits and round trips as a block
// of hundreds, so 77 trace files written one by one took longer than all
// the blocks.
const groupTransactions = 400

// group collects the batches of consecutive files to be saved together.
// Only batches that touch no common row join, so writing them at once
// leaves exactly what writing them one after another would: every
// conflict rule then compares a row with the database, never with a
// sibling. A batch with an Extra step or a config stays alone, its step
// running right after its own writes as it always has.
type group struct {
	batch *store.Batch
	files []groupFile
	keys  map[string]bool
	after []chain.AccountState // the files' states after them, for the token registry
}

// groupFile is one file of the group, in import order, with what it
// reports; err is set for a file that could not be parsed.
type groupFile struct {
	path  string
	stats Stats
	rows  fileRows
	err   error
}

// join adds b to the group, or tells that it cannot join.
func (g *group) join(path string, b *store.Batch, st Stats, rows fileRows, after []chain.AccountState) bool {
	keys := rowKeys(b)
	if g.batch != nil {
		if alone(g.batch) || alone(b) || len(g.batch.Transactions)+len(b.Transactions) > groupTransactions {
			return false
		}
		for _, k := range keys {
			if g.keys[k] {
				return false
			}
		}
	}
	g.files = append(g.files, groupFile{path: path, stats: st, rows: rows})
	if g.batch == nil {
		g.batch, g.keys = b, map[string]bool{}
	} else {
		g.batch.Transactions = append(g.batch.Transactions, b.Transactions...)
		g.batch.Traces = append(g.batch.Traces, b.Traces...)
		g.batch.Actions = append(g.batch.Actions, b.Actions...)
		g.batch.Accounts = append(g.batch.Accounts, b.Accounts...)
		g.batch.DNS = append(g.batch.DNS, b.DNS...)
		g.batch.Interfaces = append(g.batch.Interfaces, b.Interfaces...)
		g.batch.Blocks = append(g.batch.Blocks, b.Blocks...)
		g.batch.TokenMoves = append(g.batch.TokenMoves, b.TokenMoves...)
		for id, k := range b.Known {
			if g.batch.Known == nil {
				g.batch.Known = map[string]chain.KnownContracts{}
			}
			g.batch.Known[id] = k
		}
	}
	for _, k := range keys {
		g.keys[k] = true
	}
	g.after = append(g.after, after...)
	return true
}

func alone(b *store.Batch) bool { return b.Extra != nil || b.Config != nil }

// failed records a file that could not be parsed, so that it is reported
// in its place among the group's files.
func (g *group) failed(path string, err error) {
	g.files = append(g.files, groupFile{path: path, err: err})
}

// full tells whether the group should be saved before taking more.
func (g *group) full() bool {
	return g.batch != nil && (alone(g.batch) || len(g.batch.Transactions) >= groupTransactions)
}

// rowKeys names every row key b writes or replaces, one namespace per
// table family (messages and action links hang off these).
func rowKeys(b *store.Batch) []string {
	keys := make([]string, 0, len(b.Transactions)+len(b.Traces)+len(b.Actions)+len(b.Accounts)+len(b.DNS))
	for _, t := range b.Transactions {
		keys = append(keys, "tx:"+t.Hash.Base64())
	}
	for _, t := range b.Traces {
		keys = append(keys, "trace:"+t.ID.Base64())
	}
	for _, a := range b.Actions {
		keys = append(keys, "action:"+a.ActionID)
	}
	for _, a := range b.Accounts {
		keys = append(keys, "account:"+a.Address)
	}
	for _, d := range b.DNS {
		keys = append(keys, "dns:"+d.Domain)
	}
	return keys
}
