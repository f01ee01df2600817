// Package follow keeps the store up with the chain: it reads masterchain
// blocks (with the shard blocks they commit) from a BlockSource, imports
// them through the same path as files (ingest.Importer.Batch, then
// store.SaveBatch), and moves its cursor in the same database transaction,
// so a crash at any point resumes with no gap and no duplicate.
package follow

import (
	"context"
	"errors"
	"sort"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
)

// ErrNotYet means the requested masterchain block does not exist yet: the
// follower is at the head and waits.
var ErrNotYet = errors.New("block not produced yet")

// BlockSource hands out masterchain blocks in order. The lite-server source
// and the files source (tests, replays) implement it; the follower cannot
// tell them apart.
type BlockSource interface {
	// Head is the newest masterchain seqno the source can serve.
	Head(ctx context.Context) (uint32, error)
	// Block returns masterchain block seqno with the data of every shard
	// block it commits that its predecessor did not. ErrNotYet: not produced
	// yet; io.EOF: a finite source has nothing more.
	Block(ctx context.Context, seqno uint32) (*Block, error)
}

// Block is one step of the follower: everything one masterchain block
// brings, parsed the way files are.
type Block struct {
	Seqno  uint32 // masterchain seqno: what the cursor records
	Utime  uint32 // its generation time
	Blocks int    // raw blocks behind Data (master + shards), for logs
	Data   *ingest.Parsed
}

// merge joins the parsed parts of one step (master block, shard blocks)
// into one, so they are saved in one database transaction.
func merge(parts []*ingest.Parsed) *ingest.Parsed {
	out := &ingest.Parsed{Format: "block", Known: chain.KnownContracts{}}
	for _, p := range parts {
		out.Transactions = append(out.Transactions, p.Transactions...)
		out.Accounts = append(out.Accounts, p.Accounts...)
		// States after the block (a fee replay's), for the token registry.
		out.After = append(out.After, p.After...)
		if p.AfterErr != nil {
			out.AfterErr = p.AfterErr
		}
		out.Blocks = append(out.Blocks, p.Blocks...)
		for k, v := range p.Known {
			out.Known[k] = v
		}
		if p.Config != nil && (out.Config == nil || p.Config.McSeqno >= out.Config.McSeqno) {
			out.Config = p.Config
		}
	}
	return out
}

func maxUtime(txs []*chain.Transaction) uint32 {
	var u uint32
	for _, tx := range txs {
		u = max(u, tx.Utime)
	}
	return u
}

// sortBlocks orders blocks by workchain, shard and seqno: a parent before
// its children within a shard.
func sortBlocks(blocks []*chain.Block) {
	sort.Slice(blocks, func(i, j int) bool {
		a, b := blocks[i], blocks[j]
		if a.Workchain != b.Workchain {
			return a.Workchain < b.Workchain
		}
		if a.Shard != b.Shard {
			return a.Shard < b.Shard
		}
		return a.Seqno < b.Seqno
	})
}
