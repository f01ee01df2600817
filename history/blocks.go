package history

import (
	"context"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// Blocks is a page of stored blocks (toncenter's /api/v3/blocks).
func (h *History) Blocks(ctx context.Context, f store.BlockFilter) ([]*chain.BlockHeader, error) {
	return h.store.FindBlocks(ctx, f)
}

// MasterRange is the oldest and the newest stored masterchain block
// (toncenter's /api/v3/masterchainInfo); both nil when none is stored.
func (h *History) MasterRange(ctx context.Context) (first, last *chain.BlockHeader, err error) {
	if first, err = h.store.FirstMasterBlock(ctx); err != nil || first == nil {
		return nil, nil, err
	}
	last, err = h.store.LastMasterBlock(ctx)
	return first, last, err
}

// ShardState is the masterchain block mcSeqno and the newest block of each
// shard as of it (toncenter's /api/v3/masterchainBlockShardState, the
// shard_state its indexer keeps from the block's shard hashes): of the
// blocks mcSeqno commits, those no other of them names as its previous
// block (a split or merge inside the set drops the parent too), by
// workchain, shard, seqno. A shard that made no block since the previous
// masterchain block is committed by an earlier one, so it is not listed:
// the store keeps blocks, not the masterchain block's shard hashes.
func (h *History) ShardState(ctx context.Context, mcSeqno uint32) ([]*chain.BlockHeader, error) {
	all, err := h.store.CommittedBlocks(ctx, mcSeqno)
	if err != nil {
		return nil, err
	}
	type key struct {
		wc    int32
		shard uint64
		seqno uint32
	}
	superseded := map[key]bool{}
	for _, b := range all {
		for _, p := range b.Prev {
			superseded[key{p.Workchain, p.Shard, p.Seqno}] = true
		}
	}
	out := all[:0]
	for _, b := range all {
		if !superseded[key{b.Workchain, b.Shard, b.Seqno}] {
			out = append(out, b)
		}
	}
	return out, nil
}
