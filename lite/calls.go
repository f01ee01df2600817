package lite

import (
	"context"
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/liteapi"
	"github.com/tonkeeper/tongo/liteclient"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// masterShard is the one shard of the masterchain.
const masterShard = 0x8000000000000000

// Head returns the newest masterchain block a server knows.
func (c *Client) Head(ctx context.Context) (ton.BlockIDExt, error) {
	var id ton.BlockIDExt
	err := c.do(ctx, "masterchain head", func(ctx context.Context, api *liteapi.Client) error {
		info, err := api.GetMasterchainInfo(ctx)
		if err == nil {
			id = info.Last.ToBlockIdExt()
		}
		return err
	})
	return id, err
}

// LookupMaster finds masterchain block seqno. A block not produced yet is
// an error the server answers (see IsAnswer).
func (c *Client) LookupMaster(ctx context.Context, seqno uint32) (ton.BlockIDExt, error) {
	var id ton.BlockIDExt
	err := c.do(ctx, fmt.Sprintf("lookup masterchain block %d", seqno), func(ctx context.Context, api *liteapi.Client) error {
		got, _, err := api.LookupBlock(ctx, ton.BlockID{Workchain: -1, Shard: masterShard, Seqno: seqno}, 1, nil, nil)
		if err == nil {
			id = got
		}
		return err
	})
	return id, err
}

// Block returns the raw block (a BOC) after checking that its root hash is
// the one asked for: a server cannot hand us a different block.
func (c *Client) Block(ctx context.Context, id ton.BlockIDExt) ([]byte, error) {
	var raw []byte
	err := c.do(ctx, "block "+id.BlockID.String(), func(ctx context.Context, api *liteapi.Client) error {
		res, err := api.GetBlockRaw(ctx, id)
		if err != nil {
			return err
		}
		cells, err := boc.DeserializeBoc(res.Data)
		if err != nil || len(cells) != 1 {
			return fmt.Errorf("block %s: malformed BOC", id.BlockID.String())
		}
		h, err := cells[0].Hash256()
		if err != nil || ton.Bits256(h) != id.RootHash {
			return fmt.Errorf("block %s: root hash mismatch", id.BlockID.String())
		}
		raw = res.Data
		return nil
	})
	return raw, err
}

// Account returns the current ShardAccount of an account as a BOC (what
// the emulator and the store take). An account that never existed comes
// back as an empty ShardAccount, not an error.
func (c *Client) Account(ctx context.Context, id ton.AccountID) ([]byte, error) {
	var out []byte
	err := c.do(ctx, "account "+id.ToRaw(), func(ctx context.Context, api *liteapi.Client) error {
		sa, err := api.GetAccountState(ctx, id)
		if err != nil {
			return err
		}
		cell := boc.NewCell()
		if err := tlb.Marshal(cell, sa); err != nil {
			return fmt.Errorf("encode shard account: %w", err)
		}
		out, err = cell.ToBoc()
		return err
	})
	return out, err
}

// Config returns the current blockchain config as a BOC of the config
// dictionary root, and the masterchain block it was read at.
func (c *Client) Config(ctx context.Context) ([]byte, uint32, error) {
	var (
		out   []byte
		seqno uint32
	)
	err := c.do(ctx, "blockchain config", func(ctx context.Context, api *liteapi.Client) error {
		res, err := api.GetConfigAllRaw(ctx, 0)
		if err != nil {
			return err
		}
		params, err := ton.DecodeConfigParams(res.ConfigProof)
		if err != nil {
			return fmt.Errorf("decode config: %w", err)
		}
		cell := boc.NewCell()
		if err := tlb.Marshal(cell, params.Config); err != nil {
			return fmt.Errorf("encode config: %w", err)
		}
		if out, err = cell.ToBoc(); err != nil {
			return err
		}
		seqno = res.Id.Seqno
		return nil
	})
	return out, seqno, err
}

// IsAnswer reports an error a server answered with (block not in its
// database yet, ...): the servers are fine, what was asked for is not there.
func IsAnswer(err error) bool {
	var answered liteclient.LiteServerErrorC
	return errors.As(err, &answered)
}

// MasterchainInfo is the newest masterchain block a server knows, the hash
// of its state, and the network's zero state.
type MasterchainInfo struct {
	Last          ton.BlockIDExt
	StateRootHash ton.Bits256
	InitRootHash  ton.Bits256
	InitFileHash  ton.Bits256
}

// MasterchainInfo asks a server for the newest masterchain block.
func (c *Client) MasterchainInfo(ctx context.Context) (MasterchainInfo, error) {
	var out MasterchainInfo
	err := c.do(ctx, "masterchain info", func(ctx context.Context, api *liteapi.Client) error {
		info, err := api.GetMasterchainInfo(ctx)
		if err == nil {
			out = MasterchainInfo{Last: info.Last.ToBlockIdExt(), StateRootHash: ton.Bits256(info.StateRootHash),
				InitRootHash: ton.Bits256(info.Init.RootHash), InitFileHash: ton.Bits256(info.Init.FileHash)}
		}
		return err
	})
	return out, err
}

// SendMessage hands an external message (a BOC) to a server for the
// network. A server that refuses it answers an error (see IsAnswer).
func (c *Client) SendMessage(ctx context.Context, boc []byte) error {
	return c.do(ctx, "send message", func(ctx context.Context, api *liteapi.Client) error {
		_, err := api.SendMessage(ctx, boc)
		return err
	})
}

// AccountTransactions returns up to count transactions of an account as
// raw BOCs, newest first, starting at the one with lt and hash (included)
// and following each one's link to the previous: tonlib's
// raw.getTransactions. Lite servers without the older history pass the
// request to an archive one (tongo's archive detection).
func (c *Client) AccountTransactions(ctx context.Context, id ton.AccountID, lt uint64, hash [32]byte, count int) ([][]byte, error) {
	var out [][]byte
	err := c.do(ctx, "transactions of "+id.ToRaw(), func(ctx context.Context, api *liteapi.Client) error {
		res, err := api.GetTransactionsRaw(ctx, uint32(count), id, lt, ton.Bits256(hash))
		if err != nil {
			return err
		}
		out = out[:0]
		if len(res.Transactions) == 0 {
			return nil
		}
		cells, err := boc.DeserializeBoc(res.Transactions)
		if err != nil {
			return fmt.Errorf("transactions of %s: %w", id.ToRaw(), err)
		}
		for _, cell := range cells {
			b, err := cell.ToBoc()
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	})
	return out, err
}

// Libraries asks a server for library cells by hash; the ones it lacks
// are absent from the answer. Each cell is checked against its hash (a
// server's answer is checked, not trusted) and returned as a BOC.
func (c *Client) Libraries(ctx context.Context, hashes []ton.Bits256) (map[ton.Bits256][]byte, error) {
	out := map[ton.Bits256][]byte{}
	err := c.do(ctx, "libraries", func(ctx context.Context, api *liteapi.Client) error {
		cells, err := api.GetLibraries(ctx, hashes)
		if err != nil {
			return err
		}
		for h, cell := range cells {
			got, err := cell.Hash256()
			if err != nil || got != h {
				return fmt.Errorf("library %x: the cell does not hash to its key", h[:])
			}
			if out[h], err = cell.ToBoc(); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// LookupBlockRaw finds a shard's block as tonlib's lookupBlock does (by
// seqno, an lt it covers or a time: exactly one of them) and returns it
// raw (history.BlockArchive). nil, nil: a server answered there is none.
func (c *Client) LookupBlockRaw(ctx context.Context, workchain int32, shard int64, seqno *uint32, lt *uint64, utime *uint32) ([]byte, error) {
	id := ton.BlockID{Workchain: workchain, Shard: uint64(shard)}
	var mode uint32
	switch {
	case seqno != nil:
		id.Seqno, mode = *seqno, 1
	case lt != nil:
		mode = 2
	case utime != nil:
		mode = 4
	default:
		return nil, errors.New("lookup block: no seqno, lt or utime")
	}
	var found ton.BlockIDExt
	err := c.do(ctx, "lookup block "+id.String(), func(ctx context.Context, api *liteapi.Client) error {
		got, _, err := api.LookupBlock(ctx, id, mode, lt, utime)
		found = got
		return err
	})
	if IsAnswer(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return c.Block(ctx, found)
}
