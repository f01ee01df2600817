// Package history reads the chain data the store keeps, blocks and raw
// transactions, for the views that show them as the chain has them
// (toncenter's v2 methods in tonlib's shapes; later its v3 lists). It
// decides what an answer holds and where it comes from; the shapes are
// drawn at the edge (rest/).
//
// What the store holds is what was imported or followed. A transaction
// imported from toncenter trace JSON has no raw BOC: it is never shown
// with a made-up one (see Transaction.BOC and ErrNoBOC).
package history

import (
	"context"
	"errors"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// History answers from a store and, for what the store lacks, from an
// archive (lite servers) when there is one.
type History struct {
	store   *store.Store
	archive Archive
}

// Archive serves the transactions the store lacks: lite servers
// (lite.Client) in production.
type Archive interface {
	// AccountTransactions returns up to count transactions of an account
	// as raw BOCs, newest first, from the one with lt and hash (included)
	// back along each one's link to the previous.
	AccountTransactions(ctx context.Context, id ton.AccountID, lt uint64, hash [32]byte, count int) ([][]byte, error)
}

// New reads st; archive may be nil (the store alone answers).
func New(st *store.Store, archive Archive) *History { return &History{store: st, archive: archive} }

// MasterShard is the masterchain's one shard, signed as printed.
const MasterShard int64 = -1 << 63

// ErrNoBOC is a stored transaction without its raw BOC: one imported from
// toncenter trace JSON, which carries decoded fields only.
var ErrNoBOC = errors.New("transaction stored without its raw BOC (imported from trace JSON)")

// Block is the stored block of a shard by seqno. When root or file hash
// are given (non-zero) they must match the stored block's. Not found is
// an apperr.NotFound naming the block.
func (h *History) Block(ctx context.Context, workchain int32, shard int64, seqno uint32, root, file chain.Hash) (*chain.BlockHeader, error) {
	b, err := h.LookupBlock(ctx, workchain, shard, store.BlockLookup{Seqno: &seqno})
	if apperr.From(err).Kind == apperr.NotFound {
		return nil, apperr.New(apperr.NotFound, "block (%d,%d,%d) is not in the store%s", workchain, shard, seqno, h.norArchive())
	}
	if err != nil {
		return nil, err
	}
	if (!root.IsZero() && root != b.RootHash) || (!file.IsZero() && file != b.FileHash) {
		return nil, apperr.New(apperr.NotFound, "block (%d,%d,%d) has other hashes than the ones given", workchain, shard, seqno)
	}
	return b, nil
}

// LookupBlock is tonlib's lookupBlock over the store: a shard's block by
// seqno, by an lt it covers, or by the first block at or after a time;
// a block the store lacks from the archive (lite servers) when there is
// one.
func (h *History) LookupBlock(ctx context.Context, workchain int32, shard int64, l store.BlockLookup) (*chain.BlockHeader, error) {
	b, err := h.store.Block(ctx, workchain, shard, l)
	if err != nil {
		return nil, err
	}
	if b == nil {
		if b, found, err := h.archivedBlock(ctx, workchain, shard, l); found || err != nil {
			return b, err
		}
		return nil, apperr.New(apperr.NotFound, "no block of shard (%d,%d) in the store%s matches", workchain, shard, h.norArchive())
	}
	return b, nil
}

// LastMasterBlock is the newest stored masterchain block, or nil.
func (h *History) LastMasterBlock(ctx context.Context) (*chain.BlockHeader, error) {
	return h.store.LastMasterBlock(ctx)
}

// Shards are the shard blocks the masterchain block mcSeqno commits, as
// far as the store knows them (a followed block: all of them; blocks
// imported from files say which masterchain block commits them only when
// the file does).
func (h *History) Shards(ctx context.Context, mcSeqno uint32) ([]*chain.BlockHeader, error) {
	all, err := h.store.CommittedBlocks(ctx, mcSeqno)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, b := range all {
		if b.Workchain != -1 {
			out = append(out, b)
		}
	}
	return out, nil
}

// InShard reports whether an account (raw) lives in a shard of a workchain.
func InShard(id ton.AccountID, workchain int32, shard uint64) bool {
	if id.Workchain != workchain {
		return false
	}
	// The shard's prefix is the bits above its lowest set bit.
	low := shard & -shard
	mask := ^(low<<1 - 1)
	var top uint64
	for _, b := range id.Address[:8] {
		top = top<<8 | uint64(b)
	}
	return top&mask == shard&mask
}
