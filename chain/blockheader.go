package chain

import (
	"crypto/sha256"
	"errors"
	"strconv"
	"strings"

	"github.com/tonkeeper/tongo/tlb"
)

// BlockID names one block exactly: where it sits (workchain, shard, seqno)
// and which block that is (root hash of its cell tree, hash of its file).
// Shard is the shard prefix as an unsigned number (the masterchain's one
// shard is 0x8000000000000000); toncenter prints it as a signed int64.
type BlockID struct {
	Workchain int32
	Shard     uint64
	Seqno     uint32
	RootHash  Hash
	FileHash  Hash
}

// BlockHeader is what a block says about itself (its BlockInfo) plus the
// facts read from the whole block: its hashes and its transaction count.
// It is the row of the block store (history reads it back).
type BlockHeader struct {
	BlockID
	GlobalID               int32
	Version                uint32
	Flags                  uint8
	AfterMerge             bool
	AfterSplit             bool
	BeforeSplit            bool
	WantMerge              bool
	WantSplit              bool
	KeyBlock               bool
	VertSeqno              uint32
	ValidatorListHashShort uint32
	CatchainSeqno          uint32
	MinRefMcSeqno          uint32
	PrevKeyBlockSeqno      uint32
	GenUtime               uint32
	StartLt                uint64
	EndLt                  uint64
	// MasterRef is the masterchain block a shard block's header refers to
	// (its master_ref); nil for a masterchain block.
	MasterRef *BlockID
	// McSeqno is the masterchain block that commits this block: its own
	// seqno for a masterchain block; for a shard block known only when the
	// block came with its masterchain block (the follower), else 0.
	McSeqno uint32
	// Prev are the blocks this one follows: one, or two after a merge.
	Prev    []BlockID
	TxCount int
	// VertSeqnoIncr (the header's flag) and RandSeed, CreatedBy (the
	// block's extra) are read from every parsed block; nil only on a row
	// stored before the store kept them (migration ...201), until the
	// block is imported or followed again.
	VertSeqnoIncr *bool
	RandSeed      *Hash
	CreatedBy     *Hash
}

// ShardSigned is the shard as toncenter and tonlib print it.
func (b BlockID) ShardSigned() int64 { return int64(b.Shard) }

// ShardParent is the shard that split into s (s itself for the whole
// workchain's shard).
func ShardParent(s uint64) uint64 {
	x := s & -s
	if x == 1<<63 {
		return s
	}
	return (s - x) | (x << 1)
}

// ShardChildren are the two shards s splits into (left, right).
func ShardChildren(s uint64) (uint64, uint64) {
	x := (s & -s) >> 1
	return s - x, s + x
}

func blockHeader(raw *tlb.Block, file []byte, rootHash [32]byte, txs int) BlockHeader {
	info := raw.Info
	wc := info.Shard.WorkchainID
	h := BlockHeader{
		BlockID: BlockID{Workchain: wc, Shard: info.Shard.ShardPrefix | 1<<(63-uint64(info.Shard.ShardPfxBits)), Seqno: info.SeqNo,
			RootHash: rootHash, FileHash: sha256.Sum256(file)},
		GlobalID: raw.GlobalId, Version: info.Version, Flags: info.Flags,
		AfterMerge: info.AfterMerge, AfterSplit: info.AfterSplit, BeforeSplit: info.BeforeSplit,
		WantMerge: info.WantMerge, WantSplit: info.WantSplit, KeyBlock: info.KeyBlock,
		VertSeqno: info.VertSeqNo, ValidatorListHashShort: info.GenValidatorListHashShort,
		CatchainSeqno: info.GenCatchainSeqno, MinRefMcSeqno: info.MinRefMcSeqno,
		PrevKeyBlockSeqno: info.PrevKeyBlockSeqno, GenUtime: info.GenUtime,
		StartLt: info.StartLt, EndLt: info.EndLt, TxCount: txs,
	}
	incr, seed, by := info.VertSeqnoIncr, Hash(raw.Extra.RandSeed), Hash(raw.Extra.CreatedBy)
	h.VertSeqnoIncr, h.RandSeed, h.CreatedBy = &incr, &seed, &by
	if !info.NotMaster {
		h.McSeqno = info.SeqNo
	} else if info.MasterRef != nil {
		m := info.MasterRef.Master
		h.MasterRef = &BlockID{Workchain: -1, Shard: 1 << 63, Seqno: m.SeqNo, RootHash: Hash(m.RootHash), FileHash: Hash(m.FileHash)}
	}
	ref := func(r tlb.ExtBlkRef, shard uint64) BlockID {
		return BlockID{Workchain: wc, Shard: shard, Seqno: r.SeqNo, RootHash: Hash(r.RootHash), FileHash: Hash(r.FileHash)}
	}
	switch p := info.PrevRef; {
	case p.PrevBlksInfo != nil:
		left, right := ShardChildren(h.Shard)
		h.Prev = []BlockID{ref(p.PrevBlksInfo.Prev1, left), ref(p.PrevBlksInfo.Prev2, right)}
	case p.PrevBlkInfo != nil:
		shard := h.Shard
		if info.AfterSplit {
			shard = ShardParent(shard)
		}
		h.Prev = []BlockID{ref(p.PrevBlkInfo.Prev, shard)}
	}
	return h
}

// ParseShardID reads a shard id as toncenter takes one: unsigned hex
// (8000000000000000, optional 0x) first, else signed decimal
// (-9223372036854775808). It returns the signed form the store keeps.
func ParseShardID(s string) (int64, error) {
	if u, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64); err == nil {
		return int64(u), nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	return 0, errors.New("must be a shard id: hex as 8000000000000000 or signed decimal")
}
