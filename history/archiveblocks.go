package history

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// BlockArchive serves the block headers the store lacks (lite servers in
// production: lite.Client implements it). An archive that lists
// transactions may also serve blocks; History asks for a block only after
// the store had none.
type BlockArchive interface {
	// LookupBlockRaw returns the raw block (a BOC) of a shard found as
	// tonlib's lookupBlock finds it: by seqno, by an lt it covers or by the
	// first block at or after a time (exactly one of seqno, lt, utime).
	// nil, nil: the archive answers that there is none (a 404, where an
	// archive that does not answer is a 503).
	LookupBlockRaw(ctx context.Context, workchain int32, shard int64, seqno *uint32, lt *uint64, utime *uint32) ([]byte, error)
}

// archivedBlock asks the archive for a block the store lacks. found is
// false without a block archive, so the caller answers as the store alone
// would. The header is read from the block itself (its file hash is the
// BOC's as served), after checking it is the shard's block asked for:
// whatever the archive sends, an answer never names another block.
func (h *History) archivedBlock(ctx context.Context, workchain int32, shard int64, l store.BlockLookup) (_ *chain.BlockHeader, found bool, err error) {
	ba, ok := h.archive.(BlockArchive)
	if !ok {
		return nil, false, nil
	}
	raw, err := ba.LookupBlockRaw(ctx, workchain, shard, l.Seqno, l.Lt, l.Utime)
	if err != nil {
		return nil, false, apperr.Wrap(apperr.Unavailable, err, "a block older than the store: the lite servers did not answer: "+err.Error())
	}
	if raw == nil {
		return nil, false, nil
	}
	blk, err := chain.ParseBlockBOC(raw)
	if err != nil {
		return nil, false, apperr.Wrap(apperr.Unavailable, err, "a lite server sent a block that does not parse")
	}
	b := blk.Header
	if b.Workchain != workchain || b.ShardSigned() != shard || !matches(&b, l) {
		return nil, false, apperr.New(apperr.Unavailable, "a lite server sent block (%d,%d,%d) for another lookup", b.Workchain, b.ShardSigned(), b.Seqno)
	}
	return &b, true, nil
}

// matches tells whether b is a block the lookup can find: by seqno
// exactly; by lt, the block whose [start_lt, end_lt) holds it; by time, one
// generated at or after it (which one is first is the archive's word).
func matches(b *chain.BlockHeader, l store.BlockLookup) bool {
	switch {
	case l.Seqno != nil:
		return b.Seqno == *l.Seqno
	case l.Lt != nil:
		return b.StartLt <= *l.Lt && *l.Lt < b.EndLt
	case l.Utime != nil:
		return b.GenUtime >= *l.Utime
	}
	return false
}

// norArchive ends a not-found message: where else was looked.
func (h *History) norArchive() string {
	if _, ok := h.archive.(BlockArchive); ok {
		return " nor on the lite servers"
	}
	return ""
}
