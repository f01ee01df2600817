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
