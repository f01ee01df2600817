package chain

import (
	"fmt"
	"sort"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Block is what the importer needs from a raw block: where it sits and the
// transactions of its account blocks.
type Block struct {
	Workchain    int32
	Shard        uint64
	Seqno        uint32
	GenUtime     uint32
	IsMaster     bool
	Transactions []*Transaction // ordered by lt, then account
}

// ParseBlockBOC decodes a raw block (one root cell) and every transaction
// in it. For masterchain blocks McSeqno of each transaction is the block's
// seqno; a shard block does not say which masterchain block commits it.
func ParseBlockBOC(b []byte) (blk *Block, err error) {
	defer recoverDecode("block", &err)
	cells, err := boc.DeserializeBoc(b)
	if err != nil {
		return nil, fmt.Errorf("block BOC: %w", err)
	}
	if len(cells) != 1 {
		return nil, fmt.Errorf("block BOC: want 1 root, got %d", len(cells))
	}
	var raw tlb.Block
	if err := tlb.Unmarshal(cells[0], &raw); err != nil {
		return nil, fmt.Errorf("block: %w", err)
	}
	info := raw.Info
	blk = &Block{
		Workchain: info.Shard.WorkchainID,
		Shard:     info.Shard.ShardPrefix,
		Seqno:     info.SeqNo,
		GenUtime:  info.GenUtime,
		IsMaster:  !info.NotMaster,
	}
	for _, rawTx := range raw.AllTransactions() {
		tx, err := TransactionFromTLB(rawTx, blk.Workchain)
		if err != nil {
			return nil, fmt.Errorf("block transaction lt %d: %w", rawTx.Lt, err)
		}
		if blk.IsMaster {
			tx.McSeqno = blk.Seqno
		}
		blk.Transactions = append(blk.Transactions, tx)
	}
	sort.SliceStable(blk.Transactions, func(i, j int) bool {
		a, b := blk.Transactions[i], blk.Transactions[j]
		if a.Lt != b.Lt {
			return a.Lt < b.Lt
		}
		return a.Account < b.Account
	})
	return blk, nil
}
