package chain_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

func TestParseBlockBOC(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	if len(files) == 0 {
		t.Skip("no block fixtures")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := chain.ParseBlockBOC(b)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		t.Logf("%s: wc=%d seqno=%d master=%v txs=%d", filepath.Base(f), blk.Workchain, blk.Seqno, blk.IsMaster, len(blk.Transactions))
		for _, tx := range blk.Transactions {
			if tx.Hash.IsZero() || tx.Lt == 0 || len(tx.BOC) == 0 {
				t.Fatalf("%s: incomplete transaction %+v", filepath.Base(f), tx)
			}
			again, err := chain.ParseTransactionBOC(tx.BOC)
			if err != nil {
				t.Fatalf("reparse %s: %v", tx.Hash, err)
			}
			// A lone tick-tock transaction has no message to tell its workchain.
			if again.Hash != tx.Hash || (tx.InMsg != nil && again.Account != tx.Account) {
				t.Fatalf("reparse of %s differs: %s %s", tx.Hash, again.Hash, again.Account)
			}
		}
	}
}

func TestParseBlockBOCRejectsGarbage(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("nope"), {0xb5, 0xee, 0x9c, 0x72, 1, 2, 3}} {
		if _, err := chain.ParseBlockBOC(in); err == nil {
			t.Fatalf("no error for %x", in)
		}
	}
}
