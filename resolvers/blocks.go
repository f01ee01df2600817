package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// GraphQL's blocks, block and masterchainInfo: the block store read as
// GET /api/v3/blocks and /masterchainInfo read it, in toncenter's Block
// shape (the same struct the REST routes write).

// BlockFilterOf checks GraphQL's blocks arguments with the rules of
// /api/v3/blocks: shard needs workchain, seqno needs shard.
func BlockFilterOf(in *model.BlockFilter, limit, offset *int, sort *model.SortOrder) (store.BlockFilter, error) {
	l, o, desc, err := page(limit, offset, sort)
	if err != nil {
		return store.BlockFilter{}, err
	}
	if o > cost.MaxOffset {
		return store.BlockFilter{}, apperr.Field("offset", "must be at most %d; page deeper by start_utime/end_utime or start_lt/end_lt", cost.MaxOffset)
	}
	f := store.BlockFilter{Limit: l, Offset: o, Desc: desc}
	if in == nil {
		return f, nil
	}
	if in.Workchain != nil {
		wc := int32(*in.Workchain)
		if int(wc) != *in.Workchain {
			return f, apperr.Field("workchain", "must be a 32-bit integer")
		}
		f.Workchain = &wc
	}
	if in.Shard != nil {
		if f.Workchain == nil {
			return f, apperr.Field("shard", "must be sent with workchain")
		}
		shard, err := chain.ParseShardID(*in.Shard)
		if err != nil {
			return f, apperr.Field("shard", "%v", err)
		}
		f.Shard = &shard
	}
	if in.Seqno != nil && f.Shard == nil {
		return f, apperr.Field("seqno", "must be sent with workchain and shard")
	}
	f.Seqno = in.Seqno
	for name, s := range map[string]*string{"root_hash": in.RootHash, "file_hash": in.FileHash} {
		if s == nil {
			continue
		}
		h, err := chain.ParseHash(*s)
		if err != nil {
			return f, apperr.Field(name, "%q: %v", apperr.Excerpt(*s), err)
		}
		b64 := h.Base64()
		if name == "root_hash" {
			f.RootHash = &b64
		} else {
			f.FileHash = &b64
		}
	}
	for name, v := range map[string]*uint64{"start_lt": in.StartLt, "end_lt": in.EndLt} {
		if v != nil && *v > 1<<63-1 {
			return f, apperr.Field(name, "must be below 2^63")
		}
	}
	f.McSeqno, f.StartUtime, f.EndUtime, f.StartLt, f.EndLt = in.McSeqno, in.StartUtime, in.EndUtime, in.StartLt, in.EndLt
	return f, nil
}

// GraphBlocks answers Query.blocks.
func (r *Resolver) GraphBlocks(ctx context.Context, in *model.BlockFilter, limit, offset *int, sort *model.SortOrder) ([]*toncenter.Block, error) {
	f, err := BlockFilterOf(in, limit, offset, sort)
	if err != nil {
		return nil, err
	}
	h, err := r.History()
	if err != nil {
		return nil, err
	}
	blocks, err := h.Blocks(ctx, f)
	if err != nil {
		return nil, err
	}
	return toncenter.RenderBlocks(blocks).Blocks, nil
}

// GraphBlock answers Query.block: null when not stored.
func (r *Resolver) GraphBlock(ctx context.Context, workchain int, shard string, seqno uint32) (*toncenter.Block, error) {
	one := 1
	list, err := r.GraphBlocks(ctx, &model.BlockFilter{Workchain: &workchain, Shard: &shard, Seqno: &seqno}, &one, nil, nil)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// GraphMasterchainInfo answers Query.masterchainInfo: null when no
// masterchain block is stored.
func (r *Resolver) GraphMasterchainInfo(ctx context.Context) (*toncenter.MasterchainInfo, error) {
	h, err := r.History()
	if err != nil {
		return nil, err
	}
	first, last, err := h.MasterRange(ctx)
	if err != nil || first == nil || last == nil {
		return nil, err
	}
	return &toncenter.MasterchainInfo{Last: toncenter.RenderBlock(last), First: toncenter.RenderBlock(first)}, nil
}
