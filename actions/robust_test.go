package actions_test

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

// Real traces bent the ways chain data can surprise a matcher (a branch
// missing, a step aborted or bounced, a body cut short or gone) never make
// a matcher panic (Classify would log and skip it, losing its action), and
// still yield actions with their ids and transactions.
func TestClassifyBentTraces(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	blocks, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(append(files, blocks...), filepath.Join(dir, "fee-replay", "tvm_replay_fat_block_66519406.json"))
	variants := 0
	for _, f := range files {
		tc, err := ingest.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range chain.NewAssembler().Add(tc.Transactions) {
			var nodes []*chain.TraceNode
			tr.Root.Walk(func(n *chain.TraceNode) bool { nodes = append(nodes, n); return true })
			// Big traces (block fan-outs) are bent at 16 nodes spread over them.
			step := max(1, len(nodes)/16)
			for i := 0; i < len(nodes); i += step {
				for _, bend := range bends {
					if bend.rootOnly && i > 0 {
						continue
					}
					variant := bentCopy(tr, i, bend)
					variants++
					classifySafely(t, fmt.Sprintf("%s node %d %s", filepath.Base(f), i, bend.name), variant, tc.Known)
				}
			}
		}
	}
	t.Logf("%d bent traces classified", variants)
}

type bend struct {
	name     string
	fn       func(n *chain.TraceNode)
	rootOnly bool // only a root can lack an in-message (tick-tock)
}

var bends = []bend{
	{"children dropped", func(n *chain.TraceNode) { n.Children = nil }, false},
	{"aborted", func(n *chain.TraceNode) { n.Tx.Aborted, n.Tx.ComputeSuccess, n.Tx.ActionSuccess = true, false, false }, false},
	{"bounced", func(n *chain.TraceNode) {
		if n.Tx.InMsg != nil {
			n.Tx.InMsg.Bounced = true
		}
	}, false},
	{"body cut", func(n *chain.TraceNode) {
		if n.Tx.InMsg != nil && len(n.Tx.InMsg.Body) > 8 {
			n.Tx.InMsg.Body = n.Tx.InMsg.Body[:len(n.Tx.InMsg.Body)/2]
		}
	}, false},
	{"body gone", func(n *chain.TraceNode) {
		if n.Tx.InMsg != nil {
			n.Tx.InMsg.Body = nil
		}
	}, false},
	{"root without in-message", func(n *chain.TraceNode) { n.Tx.InMsg = nil }, true},
}

// bentCopy copies the trace deeply enough to bend node i alone.
func bentCopy(tr *chain.Trace, i int, b bend) *chain.Trace {
	out := *tr
	k := 0
	var cp func(n *chain.TraceNode) *chain.TraceNode
	cp = func(n *chain.TraceNode) *chain.TraceNode {
		tx := *n.Tx
		if n.Tx.InMsg != nil {
			m := *n.Tx.InMsg
			tx.InMsg = &m
		}
		c := &chain.TraceNode{Tx: &tx}
		here := k
		k++
		for _, ch := range n.Children {
			c.Children = append(c.Children, cp(ch))
		}
		if here == i {
			b.fn(c)
		}
		return c
	}
	out.Root = cp(tr.Root)
	return &out
}

func classifySafely(t *testing.T, name string, tr *chain.Trace, known chain.KnownContracts) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: classifier panicked: %v\n%s", name, r, debug.Stack())
		}
	}()
	for _, a := range actions.ClassifyStrict(tr, known) {
		if a.ActionID == "" || a.Type == "" || len(a.Transactions) == 0 {
			t.Fatalf("%s: incomplete action %+v", name, a)
		}
	}
}
