package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// The block store: one row per raw block the importer or the follower
// read (migration 20261201000020). Package history is its reader for the
// API; these are the queries it needs, each on one index.

type blockRow struct {
	bun.BaseModel `bun:"table:blocks,alias:blocks"`

	Workchain              int32  `bun:"workchain,pk"`
	Shard                  int64  `bun:"shard,pk"`
	Seqno                  int64  `bun:"seqno,pk"`
	RootHash               string `bun:"root_hash,notnull"`
	FileHash               string `bun:"file_hash,notnull"`
	GlobalID               int32  `bun:"global_id,notnull"`
	Version                int64  `bun:"version,notnull"`
	Flags                  int32  `bun:"flags,notnull"`
	AfterMerge             bool   `bun:"after_merge,notnull"`
	AfterSplit             bool   `bun:"after_split,notnull"`
	BeforeSplit            bool   `bun:"before_split,notnull"`
	WantMerge              bool   `bun:"want_merge,notnull"`
	WantSplit              bool   `bun:"want_split,notnull"`
	KeyBlock               bool   `bun:"key_block,notnull"`
	VertSeqno              int64  `bun:"vert_seqno,notnull"`
	ValidatorListHashShort int64  `bun:"validator_list_hash_short,notnull"`
	CatchainSeqno          int64  `bun:"catchain_seqno,notnull"`
	MinRefMcSeqno          int64  `bun:"min_ref_mc_seqno,notnull"`
	PrevKeyBlockSeqno      int64  `bun:"prev_key_block_seqno,notnull"`
	GenUtime               int64  `bun:"gen_utime,notnull"`
	StartLt                int64  `bun:"start_lt,notnull"`
	EndLt                  int64  `bun:"end_lt,notnull"`
	MasterRefSeqno         *int64 `bun:"master_ref_seqno"`
	McSeqno                *int64 `bun:"mc_seqno"`
	Prev                   string `bun:"prev,notnull"`
	TxCount                int32  `bun:"tx_count,notnull"`
	// NULL on rows stored before migration ...201 (chain.BlockHeader).
	VertSeqnoIncr *bool   `bun:"vert_seqno_incr"`
	RandSeed      *string `bun:"rand_seed"`
	CreatedBy     *string `bun:"created_by"`
}

// blockRef is one previous block in blocks.prev.
type blockRef struct {
	Workchain int32  `json:"workchain"`
	Shard     int64  `json:"shard"`
	Seqno     uint32 `json:"seqno"`
	RootHash  string `json:"root_hash"`
	FileHash  string `json:"file_hash"`
}

func newBlockRow(h *chain.BlockHeader) blockRow {
	prev := make([]blockRef, len(h.Prev))
	for i, p := range h.Prev {
		prev[i] = blockRef{Workchain: p.Workchain, Shard: p.ShardSigned(), Seqno: p.Seqno,
			RootHash: p.RootHash.Base64(), FileHash: p.FileHash.Base64()}
	}
	prevJSON, _ := json.Marshal(prev) // plain values: cannot fail
	r := blockRow{
		Workchain: h.Workchain, Shard: h.ShardSigned(), Seqno: int64(h.Seqno),
		RootHash: h.RootHash.Base64(), FileHash: h.FileHash.Base64(), GlobalID: h.GlobalID,
		Version: int64(h.Version), Flags: int32(h.Flags), AfterMerge: h.AfterMerge, AfterSplit: h.AfterSplit,
		BeforeSplit: h.BeforeSplit, WantMerge: h.WantMerge, WantSplit: h.WantSplit, KeyBlock: h.KeyBlock,
		VertSeqno: int64(h.VertSeqno), ValidatorListHashShort: int64(h.ValidatorListHashShort),
		CatchainSeqno: int64(h.CatchainSeqno), MinRefMcSeqno: int64(h.MinRefMcSeqno),
		PrevKeyBlockSeqno: int64(h.PrevKeyBlockSeqno), GenUtime: int64(h.GenUtime),
		StartLt: int64(h.StartLt), EndLt: int64(h.EndLt), Prev: string(prevJSON), TxCount: int32(h.TxCount),
	}
	if h.MasterRef != nil {
		s := int64(h.MasterRef.Seqno)
		r.MasterRefSeqno = &s
	}
	if h.McSeqno != 0 {
		s := int64(h.McSeqno)
		r.McSeqno = &s
	}
	r.VertSeqnoIncr = h.VertSeqnoIncr
	r.RandSeed, r.CreatedBy = hashTextOrNil(h.RandSeed), hashTextOrNil(h.CreatedBy)
	return r
}

func hashTextOrNil(h *chain.Hash) *string {
	if h == nil {
		return nil
	}
	s := h.Base64()
	return &s
}

func parseHashTextOrNil(s *string) *chain.Hash {
	if s == nil {
		return nil
	}
	h := parseHashText(*s)
	return &h
}

func (r *blockRow) toChain() *chain.BlockHeader {
	h := &chain.BlockHeader{
		BlockID: chain.BlockID{Workchain: r.Workchain, Shard: uint64(r.Shard), Seqno: uint32(r.Seqno),
			RootHash: parseHashText(r.RootHash), FileHash: parseHashText(r.FileHash)},
		GlobalID: r.GlobalID, Version: uint32(r.Version), Flags: uint8(r.Flags), AfterMerge: r.AfterMerge,
		AfterSplit: r.AfterSplit, BeforeSplit: r.BeforeSplit, WantMerge: r.WantMerge, WantSplit: r.WantSplit,
		KeyBlock: r.KeyBlock, VertSeqno: uint32(r.VertSeqno), ValidatorListHashShort: uint32(r.ValidatorListHashShort),
		CatchainSeqno: uint32(r.CatchainSeqno), MinRefMcSeqno: uint32(r.MinRefMcSeqno),
		PrevKeyBlockSeqno: uint32(r.PrevKeyBlockSeqno), GenUtime: uint32(r.GenUtime),
		StartLt: uint64(r.StartLt), EndLt: uint64(r.EndLt), TxCount: int(r.TxCount),
	}
	if r.MasterRefSeqno != nil {
		// The header's master_ref names the block fully; the store keeps its
		// seqno (the hashes are the master block's own row).
		h.MasterRef = &chain.BlockID{Workchain: -1, Shard: 1 << 63, Seqno: uint32(*r.MasterRefSeqno)}
	}
	if r.McSeqno != nil {
		h.McSeqno = uint32(*r.McSeqno)
	}
	h.VertSeqnoIncr = r.VertSeqnoIncr
	h.RandSeed, h.CreatedBy = parseHashTextOrNil(r.RandSeed), parseHashTextOrNil(r.CreatedBy)
	var prev []blockRef
	_ = json.Unmarshal([]byte(r.Prev), &prev) // written by newBlockRow
	for _, p := range prev {
		h.Prev = append(h.Prev, chain.BlockID{Workchain: p.Workchain, Shard: uint64(p.Shard), Seqno: p.Seqno,
			RootHash: parseHashText(p.RootHash), FileHash: parseHashText(p.FileHash)})
	}
	return h
}

// saveBlocks writes block headers; a block stored again keeps its row but
// learns the masterchain block that commits it when the new copy knows it,
// and the facts a row stored before migration ...201 lacks.
func saveBlocks(ctx context.Context, w *writer, blocks []chain.BlockHeader) error {
	if len(blocks) == 0 {
		return nil
	}
	rows := make([]blockRow, len(blocks))
	for i := range blocks {
		rows[i] = newBlockRow(&blocks[i])
	}
	rows = dedupe(rows, func(r *blockRow) string {
		return fmt.Sprint(r.Workchain, "/", r.Shard, "/", r.Seqno)
	}, nil)
	return queueRows(ctx, w, "save blocks", rows,
		"CONFLICT (workchain, shard, seqno) DO UPDATE SET mc_seqno = COALESCE(EXCLUDED.mc_seqno, blocks.mc_seqno), "+
			"vert_seqno_incr = COALESCE(blocks.vert_seqno_incr, EXCLUDED.vert_seqno_incr), "+
			"rand_seed = COALESCE(blocks.rand_seed, EXCLUDED.rand_seed), created_by = COALESCE(blocks.created_by, EXCLUDED.created_by)")
}

// BlockLookup picks one block of a shard: by seqno, by a logical time it
// covers (start_lt <= lt < end_lt), or by time (the first block generated
// at or after utime, as lite servers look blocks up). Exactly one is set.
type BlockLookup struct {
	Seqno *uint32
	Lt    *uint64
	Utime *uint32
}

// Block is the stored block of a shard (shard signed, as printed), or nil.
func (s *Store) Block(ctx context.Context, workchain int32, shard int64, l BlockLookup) (*chain.BlockHeader, error) {
	var row blockRow
	err := s.read(func(db *bun.DB) error {
		q := db.NewSelect().Model(&row).Where("workchain = ?", workchain).Where("shard = ?", shard).Limit(1)
		switch {
		case l.Seqno != nil:
			q = q.Where("seqno = ?", *l.Seqno)
		case l.Lt != nil:
			q = q.Where("start_lt <= ?", int64(*l.Lt)).Where("end_lt > ?", int64(*l.Lt)).OrderExpr("start_lt DESC")
		case l.Utime != nil:
			q = q.Where("gen_utime >= ?", int64(*l.Utime)).OrderExpr("gen_utime, seqno")
		default:
			return errors.New("store: BlockLookup names no key")
		}
		return q.Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return row.toChain(), nil
}

// BlockByRootHash is the stored block with that root hash, or nil.
func (s *Store) BlockByRootHash(ctx context.Context, root chain.Hash) (*chain.BlockHeader, error) {
	var row blockRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&row).Where("root_hash = ?", root.Base64()).Limit(1).Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return row.toChain(), nil
}

// LastMasterBlock is the newest stored masterchain block, or nil.
func (s *Store) LastMasterBlock(ctx context.Context) (*chain.BlockHeader, error) {
	var row blockRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&row).Where("workchain = -1").Where("shard = ?", int64(-1<<63)).
			OrderExpr("seqno DESC").Limit(1).Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return row.toChain(), nil
}

// CommittedBlocks are the stored blocks a masterchain block commits (its
// own row included), by workchain, shard, seqno.
func (s *Store) CommittedBlocks(ctx context.Context, mcSeqno uint32) ([]*chain.BlockHeader, error) {
	var rows []blockRow
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewSelect().Model(&rows).Where("mc_seqno = ?", int64(mcSeqno)).
			OrderExpr("workchain, shard, seqno").Scan(ctx)
	}); err != nil {
		return nil, unavailable(err)
	}
	out := make([]*chain.BlockHeader, len(rows))
	for i := range rows {
		out[i] = rows[i].toChain()
	}
	return out, nil
}

// BlockFilter selects blocks for toncenter's v3 block list. Nil fields do
// not filter; the lt bounds apply to start_lt as toncenter's do.
type BlockFilter struct {
	Workchain  *int32
	Shard      *int64
	Seqno      *uint32
	RootHash   *string // base64, as stored
	FileHash   *string // base64; no index: narrow by another key too
	McSeqno    *uint32
	StartUtime *uint32
	EndUtime   *uint32
	StartLt    *uint64
	EndLt      *uint64
	Limit      int
	Offset     int
	Desc       bool
}

// FindBlocks is a page of stored blocks by f, ordered by gen_utime then
// workchain, shard, seqno (the tie-break keeps pages stable: blocks of
// several shards share a second).
func (s *Store) FindBlocks(ctx context.Context, f BlockFilter) ([]*chain.BlockHeader, error) {
	var rows []blockRow
	dir := ""
	if f.Desc {
		dir = " DESC"
	}
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		q := db.NewSelect().Model(&rows)
		if f.Workchain != nil {
			q = q.Where("workchain = ?", *f.Workchain)
		}
		if f.Shard != nil {
			q = q.Where("shard = ?", *f.Shard)
		}
		if f.Seqno != nil {
			q = q.Where("seqno = ?", int64(*f.Seqno))
		}
		if f.RootHash != nil {
			q = q.Where("root_hash = ?", *f.RootHash)
		}
		if f.FileHash != nil {
			q = q.Where("file_hash = ?", *f.FileHash)
		}
		if f.McSeqno != nil {
			q = q.Where("mc_seqno = ?", int64(*f.McSeqno))
		}
		if f.StartUtime != nil {
			q = q.Where("gen_utime >= ?", int64(*f.StartUtime))
		}
		if f.EndUtime != nil {
			q = q.Where("gen_utime <= ?", int64(*f.EndUtime))
		}
		if f.StartLt != nil {
			q = q.Where("start_lt >= ?", int64(*f.StartLt))
		}
		if f.EndLt != nil {
			q = q.Where("start_lt <= ?", int64(*f.EndLt))
		}
		return q.OrderExpr("gen_utime" + dir).OrderExpr("workchain" + dir).OrderExpr("shard" + dir).
			OrderExpr("seqno" + dir).Limit(int64(f.Limit)).Offset(int64(f.Offset)).Scan(ctx)
	}); err != nil {
		return nil, unavailable(err)
	}
	out := make([]*chain.BlockHeader, len(rows))
	for i := range rows {
		out[i] = rows[i].toChain()
	}
	return out, nil
}

// FirstMasterBlock is the oldest stored masterchain block, or nil.
func (s *Store) FirstMasterBlock(ctx context.Context) (*chain.BlockHeader, error) {
	var row blockRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&row).Where("workchain = -1").Where("shard = ?", int64(-1<<63)).
			OrderExpr("seqno").Limit(1).Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return row.toChain(), nil
}
