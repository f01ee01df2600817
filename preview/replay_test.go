package preview

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

// replay is the fee-replay fixture as the importer reads it: a real mainnet
// shard block, every touched account's state before it, its config; the
// block's traces; and its 12 external messages with what the chain charged.
type replay struct {
	source   *fees.MemorySource
	at       time.Time
	msgs     []fees.ExternalMessage
	traces   map[string]*chain.Trace // by the account of the root (each external's wallet)
	firstLt  map[string]uint64       // each account's first transaction in the block
	config   *chain.ChainConfig
	accounts []*chain.AccountState
	before   map[chain.Hash]*chain.AccountState // each block transaction's account, just before it
}

var (
	replayOnce sync.Once
	replayData *replay
	replayErr  error
)

func loadReplay(t testing.TB) *replay {
	t.Helper()
	path := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	replayOnce.Do(func() { replayData, replayErr = readReplay(path) })
	if replayErr != nil {
		t.Fatal(replayErr)
	}
	return replayData
}

func readReplay(path string) (*replay, error) {
	p, err := ingest.ParseFile(path)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	utime, msgs, err := fees.ReplayExternals(raw)
	if err != nil {
		return nil, err
	}
	r := &replay{source: fees.NewMemorySource(p.Config), at: time.Unix(int64(utime), 0), msgs: msgs,
		traces: map[string]*chain.Trace{}, firstLt: map[string]uint64{}}
	r.config = p.Config
	for i := range p.Accounts {
		r.source.Put(&p.Accounts[i])
		r.accounts = append(r.accounts, &p.Accounts[i])
	}
	if r.before, err = blockStates(path, p.Config); err != nil {
		return nil, err
	}
	for _, tx := range p.Transactions {
		if l, ok := r.firstLt[tx.Account]; !ok || tx.Lt < l {
			r.firstLt[tx.Account] = tx.Lt
		}
	}
	for _, tr := range chain.NewAssembler().Add(p.Transactions) {
		if in := tr.Root.Tx.InMsg; in != nil && in.IsExternalIn() {
			r.traces[tr.Root.Tx.Account] = tr
		}
	}
	return r, nil
}

// blockLt is where the replayed block's logical time starts: the clock a
// snapshot server runs estimates at (FEE_CLOCK=head), so that contracts
// which read the logical time see the block's.
const blockLt = 76734069000000

func (r *replay) estimator(c func(*fees.Options)) *fees.Estimator {
	return r.estimatorOn(r.source, c)
}

func (r *replay) estimatorOn(src fees.StateSource, c func(*fees.Options)) *fees.Estimator {
	opts := fees.Options{Clock: fees.FixedClock(fees.ChainTime{Unix: uint32(r.at.Unix()), Lt: blockLt})}
	if c != nil {
		c(&opts)
	}
	return fees.New(src, nil, opts)
}

// preview emulates a request and decodes it.
func (r *replay) preview(t *testing.T, est *fees.Estimator, p fees.Params) (*fees.Emulation, *Preview) {
	t.Helper()
	req, err := fees.ParseParams(p)
	if err != nil {
		t.Fatal(err)
	}
	em, err := est.Emulate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	depth, txs := est.Limits()
	pv, err := Build(em, nil, Limits{MaxDepth: depth, MaxTransactions: txs})
	if err != nil {
		t.Fatal(err)
	}
	return em, pv
}

// breadthFirst lists a trace's transactions in the order hops happen in
// (the emulation's order).
func breadthFirst(tr *chain.Trace) []*chain.Transaction {
	var out []*chain.Transaction
	queue := []*chain.TraceNode{tr.Root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		out = append(out, n.Tx)
		queue = append(queue, n.Children...)
	}
	return out
}

// chargedFees reads what the chain charged for a stored transaction.
func chargedFees(t *testing.T, tx *chain.Transaction) fees.Fees {
	t.Helper()
	cells, err := boc.DeserializeBoc(tx.BOC)
	if err != nil {
		t.Fatal(err)
	}
	var raw tlb.Transaction
	if err := tlb.Unmarshal(cells[0], &raw); err != nil {
		t.Fatal(err)
	}
	f, err := fees.TransactionFees(&raw)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
