package follow

import (
	"context"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/lite"
)

// maxShardChain bounds the walk back from a shard's new top block to the
// one the previous masterchain block committed; shards make one or two
// blocks per masterchain block, so a longer chain means inconsistent data.
const maxShardChain = 64

// LiteSource reads the chain from lite servers. One follower uses it (it
// remembers the previous masterchain block's shard tops).
type LiteSource struct {
	c         *lite.Client
	prevSeqno uint32
	prevTops  map[ton.BlockIDExt]bool
	haveCfg   bool
}

func NewLiteSource(c *lite.Client) *LiteSource { return &LiteSource{c: c} }

func (s *LiteSource) Head(ctx context.Context) (uint32, error) {
	id, err := s.c.Head(ctx)
	return id.Seqno, err
}

// Block fetches masterchain block seqno and every shard block it commits
// that the previous one did not (walking back from each new shard top).
func (s *LiteSource) Block(ctx context.Context, seqno uint32) (*Block, error) {
	mc, err := s.master(ctx, seqno)
	if err != nil {
		if lite.IsAnswer(err) {
			if head, herr := s.Head(ctx); herr == nil && seqno > head {
				return nil, ErrNotYet
			}
		}
		return nil, err
	}
	if s.prevTops == nil || s.prevSeqno+1 != seqno {
		if s.prevTops, err = s.tops(ctx, seqno-1); err != nil {
			return nil, err
		}
	}
	parts := []*ingest.Parsed{{Format: "block", Transactions: mc.blk.Transactions, Blocks: []chain.BlockHeader{mc.blk.Header}}}
	shards, err := s.newShardBlocks(ctx, mc.tops)
	if err != nil {
		return nil, fmt.Errorf("masterchain block %d: %w", seqno, err)
	}
	for _, blk := range shards {
		parts = append(parts, &ingest.Parsed{Format: "block", Transactions: blk.Transactions, Blocks: []chain.BlockHeader{blk.Header}})
	}
	data := merge(parts)
	for _, tx := range data.Transactions {
		tx.McSeqno = seqno
	}
	for i := range data.Blocks {
		data.Blocks[i].McSeqno = seqno // the masterchain block that commits them
	}
	if mc.keyBlock || !s.haveCfg {
		cfg, cfgSeqno, err := s.c.Config(ctx)
		if err != nil {
			return nil, err
		}
		data.Config = &chain.ChainConfig{McSeqno: max(cfgSeqno, seqno), Utime: mc.blk.GenUtime, ConfigBOC: cfg}
		s.haveCfg = true
	}
	s.prevSeqno, s.prevTops = seqno, mc.tops
	return &Block{Seqno: seqno, Utime: mc.blk.GenUtime, Blocks: 1 + len(shards), Data: data}, nil
}

// tops returns the shard blocks masterchain block seqno commits.
func (s *LiteSource) tops(ctx context.Context, seqno uint32) (map[ton.BlockIDExt]bool, error) {
	if seqno == 0 {
		return map[ton.BlockIDExt]bool{}, nil
	}
	mc, err := s.master(ctx, seqno)
	if err != nil {
		return nil, err
	}
	return mc.tops, nil
}

// master fetches and parses masterchain block seqno. A lookup error is
// returned as is, so callers can tell "not produced yet" from a failure.
func (s *LiteSource) master(ctx context.Context, seqno uint32) (*masterBlock, error) {
	id, err := s.c.LookupMaster(ctx, seqno)
	if err != nil {
		return nil, err
	}
	raw, err := s.c.Block(ctx, id)
	if err != nil {
		return nil, err
	}
	mc, err := parseMaster(raw)
	if err != nil {
		return nil, fmt.Errorf("masterchain block %d: %w", seqno, err)
	}
	return &mc, nil
}

// newShardBlocks walks back from each shard top to the blocks the previous
// masterchain block committed, parents before children in the result.
func (s *LiteSource) newShardBlocks(ctx context.Context, tops map[ton.BlockIDExt]bool) ([]*chain.Block, error) {
	seen := map[ton.BlockIDExt]bool{}
	var out []*chain.Block
	for top := range tops {
		queue := []ton.BlockIDExt{top}
		for depth := 0; len(queue) > 0; depth++ {
			if depth > maxShardChain {
				return nil, fmt.Errorf("shard %s: more than %d blocks since the previous masterchain block", top.BlockID.String(), maxShardChain)
			}
			id := queue[0]
			queue = queue[1:]
			if seen[id] || s.prevTops[id] {
				continue
			}
			seen[id] = true
			raw, err := s.c.Block(ctx, id)
			if err != nil {
				return nil, err
			}
			blk, parents, err := parseShard(raw)
			if err != nil {
				return nil, fmt.Errorf("shard block %s: %w", id.BlockID.String(), err)
			}
			out = append(out, blk)
			queue = append(queue, parents...)
		}
	}
	// Parents first: lt order is what the trace assembler expects anyway,
	// and it makes logs read in chain order.
	sortBlocks(out)
	return out, nil
}

type masterBlock struct {
	blk      *chain.Block
	tops     map[ton.BlockIDExt]bool
	keyBlock bool
}

func parseMaster(raw []byte) (mc masterBlock, err error) {
	defer recoverDecode(&err)
	blk, err := chain.ParseBlockBOC(raw)
	if err != nil {
		return mc, err
	}
	if !blk.IsMaster {
		return mc, fmt.Errorf("not a masterchain block")
	}
	var b tlb.Block
	if err := decodeBlock(raw, &b); err != nil {
		return mc, err
	}
	mc = masterBlock{blk: blk, tops: map[ton.BlockIDExt]bool{}, keyBlock: b.Info.KeyBlock}
	if b.Extra.Custom.Exists {
		extra := b.Extra.Custom.Value.Value
		keys := extra.ShardHashes.Keys()
		for i, v := range extra.ShardHashes.Values() {
			for _, desc := range v.Value.BinTree.Values {
				mc.tops[ton.ToBlockId(desc, int32(keys[i]))] = true
			}
		}
	}
	return mc, nil
}

func parseShard(raw []byte) (blk *chain.Block, parents []ton.BlockIDExt, err error) {
	defer recoverDecode(&err)
	if blk, err = chain.ParseBlockBOC(raw); err != nil {
		return nil, nil, err
	}
	var b tlb.Block
	if err := decodeBlock(raw, &b); err != nil {
		return nil, nil, err
	}
	parents, err = ton.GetParents(b.Info)
	return blk, parents, err
}

func decodeBlock(raw []byte, b *tlb.Block) error {
	cells, err := boc.DeserializeBoc(raw)
	if err != nil {
		return err
	}
	if len(cells) != 1 {
		return fmt.Errorf("block BOC: want 1 root, got %d", len(cells))
	}
	return tlb.Unmarshal(cells[0], b)
}

func recoverDecode(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("malformed block (%v)", r)
	}
}
