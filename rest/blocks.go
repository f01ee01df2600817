package rest

import (
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// toncenter's v3 block routes over the block store (package history).

// MasterchainInfo serves GET /api/v3/masterchainInfo: the newest and the
// oldest stored masterchain block. None stored is 404.
func MasterchainInfo(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(nil, func(r *http.Request, _ *toncenter.Params) (any, error) {
		h, err := historyOf(res)
		if err != nil {
			return nil, err
		}
		first, last, err := h.MasterRange(r.Context())
		if err != nil {
			return nil, err
		}
		if first == nil || last == nil {
			return nil, apperr.New(apperr.NotFound, "no masterchain block is stored")
		}
		return &toncenter.MasterchainInfo{Last: toncenter.RenderBlock(last), First: toncenter.RenderBlock(first)}, nil
	})
}

var blocksParams = names([]string{"workchain", "shard", "seqno", "root_hash", "file_hash", "mc_seqno",
	"start_utime", "end_utime", "start_lt", "end_lt"}, toncenter.PageParams)

// Blocks serves GET /api/v3/blocks: blocks by workchain, shard, seqno,
// root or file hash, committing masterchain block, time and lt, ordered by gen_utime (sort), then
// workchain, shard and seqno.
func Blocks(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(blocksParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		f, err := blockPage(p)
		if err != nil {
			return nil, err
		}
		if f.RootHash, err = p.Hash("root_hash"); err != nil {
			return nil, err
		}
		if f.FileHash, err = p.Hash("file_hash"); err != nil {
			return nil, err
		}
		if n, err := p.Int("workchain", 32); err != nil {
			return nil, err
		} else if n != nil {
			wc := int32(*n)
			f.Workchain = &wc
		}
		if f.Shard, err = p.Shard("shard"); err != nil {
			return nil, err
		}
		if f.Shard != nil && f.Workchain == nil {
			return nil, apperr.Field("shard", "must be sent with workchain")
		}
		if f.Seqno, err = p.Uint32("seqno"); err != nil {
			return nil, err
		}
		if f.Seqno != nil && f.Shard == nil {
			return nil, apperr.Field("seqno", "must be sent with workchain and shard")
		}
		if err := p.Window(&f.McSeqno, &f.StartUtime, &f.EndUtime, &f.StartLt, &f.EndLt); err != nil {
			return nil, err
		}
		h, err := historyOf(res)
		if err != nil {
			return nil, err
		}
		blocks, err := h.Blocks(r.Context(), f)
		if err != nil {
			return nil, err
		}
		return toncenter.RenderBlocks(blocks), nil
	})
}

// blockPage reads limit, offset and sort, the offset bounded as every
// list's is (the database reads every skipped row).
func blockPage(p *toncenter.Params) (store.BlockFilter, error) {
	pg, err := p.Page()
	if err != nil {
		return store.BlockFilter{}, err
	}
	if pg.Offset > cost.MaxOffset {
		return store.BlockFilter{}, apperr.Field("offset", "must be at most %d; page deeper by start_utime/end_utime or start_lt/end_lt", cost.MaxOffset)
	}
	return store.BlockFilter{Limit: pg.Limit, Offset: pg.Offset, Desc: pg.Desc}, nil
}

// MasterchainBlockShards serves GET /api/v3/masterchainBlockShards: the
// blocks the masterchain block seqno commits (its own included, as
// toncenter lists them), by gen_utime. None stored is 404.
func MasterchainBlockShards(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(names([]string{"seqno"}, toncenter.PageParams), func(r *http.Request, p *toncenter.Params) (any, error) {
		f, err := blockPage(p)
		if err != nil {
			return nil, err
		}
		if f.McSeqno, err = p.RequiredUint32("seqno"); err != nil {
			return nil, err
		}
		h, err := historyOf(res)
		if err != nil {
			return nil, err
		}
		blocks, err := h.Blocks(r.Context(), f)
		if err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			return nil, apperr.New(apperr.NotFound, "blocks not found")
		}
		return toncenter.RenderBlocks(blocks), nil
	})
}

// MasterchainBlockShardState serves GET
// /api/v3/masterchainBlockShardState: the masterchain block seqno and the
// newest block of each shard as of it, as far as the store holds them
// (history.ShardState). None stored is 404, as toncenter answers.
func MasterchainBlockShardState(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get([]string{"seqno"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		seqno, err := p.Uint32("seqno")
		if err != nil {
			return nil, err
		}
		if seqno == nil {
			return nil, apperr.Field("seqno", "required")
		}
		h, err := historyOf(res)
		if err != nil {
			return nil, err
		}
		blocks, err := h.ShardState(r.Context(), *seqno)
		if err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			return nil, apperr.New(apperr.NotFound, "blocks not found")
		}
		return toncenter.RenderBlocks(blocks), nil
	})
}
