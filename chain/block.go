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
	// Header is the block's own description, for the block store. Its
	// FileHash is the hash of the bytes given, which is the block's file
	// hash when they are the block's file as the network serves it.
	Header BlockHeader
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
	rootHash, err := cells[0].Hash256()
	if err != nil {
		return nil, fmt.Errorf("block BOC: %w", err)
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
	blk.Header = blockHeader(&raw, b, rootHash, len(blk.Transactions))
	ref := &BlockID{Workchain: blk.Header.Workchain, Shard: blk.Header.Shard, Seqno: blk.Header.Seqno}
	for _, tx := range blk.Transactions {
		tx.Block = ref
	}
	return blk, nil
}
