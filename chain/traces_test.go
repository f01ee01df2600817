package chain_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

func TestToncenterTracesAssemble(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	if len(files) == 0 {
		t.Skip("no toncenter traces")
	}
	for _, f := range files {
		tr := readToncenter(t, f)
		traces := chain.NewAssembler().Add(tr.Transactions)
		if len(traces) != 1 {
			t.Fatalf("%s: %d traces", filepath.Base(f), len(traces))
		}
		got := traces[0]
		if got.ID != tr.TraceID || !got.Complete || got.Transactions != len(tr.Transactions) {
			t.Fatalf("%s: id %s complete %v txs %d/%d", filepath.Base(f), got.ID, got.Complete, got.Transactions, len(tr.Transactions))
		}
		if n := len(got.TransactionList()); n != len(tr.Transactions) {
			t.Fatalf("%s: tree holds %d of %d", filepath.Base(f), n, len(tr.Transactions))
		}
	}
}

func readToncenter(t *testing.T, path string) *chain.ToncenterTrace {
	t.Helper()
	tr, err := chain.ParseToncenterFile(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return tr
}

// blockTransactions loads every fixture block, the fee-replay one included.
func blockTransactions(t *testing.T) map[string][]*chain.Transaction {
	dir := testenv.FixturesDir(t)
	out := map[string][]*chain.Transaction{}
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := chain.ParseBlockBOC(b)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = blk.Transactions
	}
	raw, err := os.ReadFile(testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Block string `json:"block_boc_base64"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	b, err := chain.DecodeBase64(doc.Block)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := chain.ParseBlockBOC(b)
	if err != nil {
		t.Fatal(err)
	}
	out["fee-replay"] = blk.Transactions
	return out
}

func TestBlockTransactionsLandInOneTrace(t *testing.T) {
	for name, txs := range blockTransactions(t) {
		// Feed in two halves so traces cross batches.
		asm := chain.NewAssembler()
		traces := asm.Add(txs[:len(txs)/2])
		second := asm.Add(txs[len(txs)/2:])
		merged := map[chain.Hash]bool{}
		for _, tr := range second {
			for _, id := range tr.Merged {
				merged[id] = true
			}
		}
		latest := map[chain.Hash]*chain.Trace{}
		for _, tr := range append(traces, second...) {
			if !merged[tr.ID] {
				latest[tr.ID] = tr
			}
		}
		seen := map[chain.Hash]chain.Hash{}
		complete := 0
		for _, tr := range latest {
			if tr.Complete {
				complete++
			}
			for _, tx := range tr.TransactionList() {
				if prev, dup := seen[tx.Hash]; dup {
					t.Fatalf("%s: tx %s in traces %s and %s", name, tx.Hash, prev, tr.ID)
				}
				seen[tx.Hash] = tr.ID
				if tx.TraceID != tr.ID {
					t.Fatalf("%s: tx %s has trace id %s, in %s", name, tx.Hash, tx.TraceID, tr.ID)
				}
			}
		}
		if len(seen) != len(txs) {
			t.Fatalf("%s: %d of %d transactions in traces", name, len(seen), len(txs))
		}
		t.Logf("%s: %d txs, %d traces, %d complete, %d pending txs", name, len(txs), len(latest), complete, asm.Pending())
	}
}

func TestAssemblerSeedCompletesPending(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	for _, f := range files {
		tr := readToncenter(t, f)
		if len(tr.Transactions) < 3 {
			continue
		}
		half := len(tr.Transactions) / 2
		first := chain.NewAssembler().Add(tr.Transactions[:half])
		for _, p := range first {
			if p.Complete {
				t.Fatalf("%s: half a trace reported complete", filepath.Base(f))
			}
		}
		// A fresh assembler (a restarted importer) seeded with the pending part.
		asm := chain.NewAssembler()
		asm.Seed(tr.Transactions[:half])
		rest := asm.Add(tr.Transactions[half:])
		var done *chain.Trace
		for _, r := range rest {
			if r.Complete {
				done = r
			}
		}
		if done == nil || done.ID != tr.TraceID || done.Transactions != len(tr.Transactions) || asm.Pending() != 0 {
			t.Fatalf("%s: seeded assembly did not complete the trace", filepath.Base(f))
		}
	}
}
