package toncenter

import (
	"fmt"

	"github.com/tonql/tonql/chain"
)

// Block is toncenter's Block. The store keeps no rand_seed, created_by or
// vert_seqno_incr, and knows the masterchain block that commits a shard
// block only when it came with it: those are null when unknown, never
// made up (docs/API-NOTES.md).
type Block struct {
	Workchain              int32     `json:"workchain"`
	Shard                  string    `json:"shard"`
	Seqno                  int32     `json:"seqno"`
	RootHash               string    `json:"root_hash"`
	FileHash               string    `json:"file_hash"`
	GlobalID               int32     `json:"global_id"`
	Version                int64     `json:"version"`
	AfterMerge             bool      `json:"after_merge"`
	BeforeSplit            bool      `json:"before_split"`
	AfterSplit             bool      `json:"after_split"`
	WantMerge              bool      `json:"want_merge"`
	WantSplit              bool      `json:"want_split"`
	KeyBlock               bool      `json:"key_block"`
	VertSeqnoIncr          *bool     `json:"vert_seqno_incr"`
	Flags                  int32     `json:"flags"`
	GenUtime               string    `json:"gen_utime"`
	StartLt                string    `json:"start_lt"`
	EndLt                  string    `json:"end_lt"`
	ValidatorListHashShort int32     `json:"validator_list_hash_short"`
	GenCatchainSeqno       int32     `json:"gen_catchain_seqno"`
	MinRefMcSeqno          int32     `json:"min_ref_mc_seqno"`
	PrevKeyBlockSeqno      int32     `json:"prev_key_block_seqno"`
	VertSeqno              int32     `json:"vert_seqno"`
	MasterRefSeqno         *int32    `json:"master_ref_seqno"`
	RandSeed               *string   `json:"rand_seed"`
	CreatedBy              *string   `json:"created_by"`
	TxCount                int64     `json:"tx_count"`
	MasterchainBlockRef    *BlockID  `json:"masterchain_block_ref"`
	PrevBlocks             []BlockID `json:"prev_blocks"`
}

// BlocksResponse is toncenter's BlocksResponse.
type BlocksResponse struct {
	Blocks []*Block `json:"blocks"`
}

// MasterchainInfo is toncenter's MasterchainInfo: the newest and the
// oldest stored masterchain block.
type MasterchainInfo struct {
	Last  *Block `json:"last"`
	First *Block `json:"first"`
}

// ShardHex is a shard as toncenter writes ShardId: unsigned, upper-case hex.
func ShardHex(shard uint64) string { return fmt.Sprintf("%X", shard) }

const masterShard = uint64(1) << 63

// RenderBlock draws a stored block header in toncenter's shape.
func RenderBlock(h *chain.BlockHeader) *Block {
	b := &Block{
		Workchain: h.Workchain, Shard: ShardHex(h.Shard), Seqno: int32(h.Seqno),
		RootHash: h.RootHash.Base64(), FileHash: h.FileHash.Base64(), GlobalID: h.GlobalID,
		Version: int64(h.Version), AfterMerge: h.AfterMerge, BeforeSplit: h.BeforeSplit, AfterSplit: h.AfterSplit,
		WantMerge: h.WantMerge, WantSplit: h.WantSplit, KeyBlock: h.KeyBlock, Flags: int32(h.Flags),
		GenUtime: u64(uint64(h.GenUtime)), StartLt: u64(h.StartLt), EndLt: u64(h.EndLt),
		ValidatorListHashShort: int32(h.ValidatorListHashShort), GenCatchainSeqno: int32(h.CatchainSeqno),
		MinRefMcSeqno: int32(h.MinRefMcSeqno), PrevKeyBlockSeqno: int32(h.PrevKeyBlockSeqno),
		VertSeqno: int32(h.VertSeqno), TxCount: int64(h.TxCount), PrevBlocks: make([]BlockID, 0, len(h.Prev)),
	}
	// A masterchain block has no master_ref; toncenter's indexer writes 0
	// for it (the record it reads is left zero), so 0 it is.
	var ref int32
	if h.MasterRef != nil {
		ref = int32(h.MasterRef.Seqno)
	}
	if h.MasterRef != nil || h.Workchain == -1 {
		b.MasterRefSeqno = &ref
	}
	b.VertSeqnoIncr = h.VertSeqnoIncr
	if h.RandSeed != nil {
		s := h.RandSeed.Base64()
		b.RandSeed = &s
	}
	if h.CreatedBy != nil {
		s := h.CreatedBy.Base64()
		b.CreatedBy = &s
	}
	if h.McSeqno != 0 {
		b.MasterchainBlockRef = &BlockID{Workchain: -1, Shard: ShardHex(masterShard), Seqno: int32(h.McSeqno)}
	}
	for _, p := range h.Prev {
		b.PrevBlocks = append(b.PrevBlocks, BlockID{Workchain: p.Workchain, Shard: ShardHex(p.Shard), Seqno: int32(p.Seqno)})
	}
	return b
}

// RenderBlocks draws a list of block headers.
func RenderBlocks(hs []*chain.BlockHeader) *BlocksResponse {
	out := &BlocksResponse{Blocks: make([]*Block, len(hs))}
	for i, h := range hs {
		out.Blocks[i] = RenderBlock(h)
	}
	return out
}
