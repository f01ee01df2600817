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

// The block's own header: block-2 and block-3 are 22 seqnos apart in one
// shard, and a shard block's previous block is in its shard (or its
// parent's after a split). The file hash is the hash of the file.
func TestParseBlockHeader(t *testing.T) {
	dir := filepath.Join(testenv.FixturesDir(t), "blocks")
	for _, name := range []string{"block-1.bin", "block-2.bin", "block-3.bin", "block-5.bin", "block-6.bin", "block-7.bin"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Skip("no block fixtures")
		}
		blk, err := chain.ParseBlockBOC(b)
		if err != nil {
			t.Fatal(err)
		}
		h := blk.Header
		if h.Seqno != blk.Seqno || h.Workchain != blk.Workchain || h.GenUtime != blk.GenUtime || h.TxCount != len(blk.Transactions) {
			t.Fatalf("%s: header %+v disagrees with block", name, h.BlockID)
		}
		if h.GlobalID != -239 || h.RootHash.IsZero() || h.StartLt == 0 || h.EndLt <= h.StartLt || len(h.Prev) == 0 {
			t.Fatalf("%s: incomplete header %+v", name, h)
		}
		for _, tx := range blk.Transactions {
			if tx.Lt < h.StartLt || tx.Lt >= h.EndLt {
				t.Fatalf("%s: tx lt %d outside [%d, %d)", name, tx.Lt, h.StartLt, h.EndLt)
			}
		}
		if blk.IsMaster != (h.MasterRef == nil) || (blk.IsMaster && h.McSeqno != h.Seqno) {
			t.Fatalf("%s: master ref %+v, mc seqno %d", name, h.MasterRef, h.McSeqno)
		}
		if p := h.Prev[0]; p.Seqno+1 != h.Seqno && !h.AfterMerge && !h.AfterSplit {
			t.Fatalf("%s: prev seqno %d for %d", name, p.Seqno, h.Seqno)
		}
		t.Logf("%s: shard %x seqno %d lt [%d,%d) prev %d", name, h.Shard, h.Seqno, h.StartLt, h.EndLt, len(h.Prev))
	}
}

func TestShardTree(t *testing.T) {
	const whole = uint64(1) << 63
	l, r := chain.ShardChildren(whole)
	if l != 0x4000000000000000 || r != 0xc000000000000000 {
		t.Fatalf("children of the whole shard: %x %x", l, r)
	}
	if chain.ShardParent(l) != whole || chain.ShardParent(r) != whole || chain.ShardParent(whole) != whole {
		t.Fatal("parent of a child is not the shard")
	}
}
