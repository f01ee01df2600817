package fees

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// ExternalMessage is an external message of a real block with the fees the
// chain charged for it: the ground truth that estimates are checked against
// (fees' own tests, the routes' tests, the end-to-end clients).
type ExternalMessage struct {
	Account   ton.AccountID
	Body      string // standard base64 of the body's BOC, as a client sends it
	BodyByRef bool   // the sender put the body in a reference (see FEES.md, "one-cell limit")
	Charged   Fees   // read from the transaction's phases, like an estimate
	// Message is standard base64 of the whole external message as the
	// chain received it (what TON Connect hands a dApp).
	Message string
}

// ReplayExternals is BlockExternals over the block of a fee-replay JSON file
// (its "block_boc_base64"), the format ingest imports with the block's
// previous account states and config.
func ReplayExternals(replayJSON []byte) (genUtime uint32, msgs []ExternalMessage, err error) {
	var f struct {
		Block string `json:"block_boc_base64"`
	}
	if err := json.Unmarshal(replayJSON, &f); err != nil {
		return 0, nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(f.Block)
	if err != nil {
		return 0, nil, fmt.Errorf("block_boc_base64: %w", err)
	}
	return BlockExternals(raw)
}

// BlockExternals decodes a block BOC and returns its chain time and its
// transactions on external messages, in block order.
func BlockExternals(blockBOC []byte) (genUtime uint32, msgs []ExternalMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed block (%v)", r)
		}
	}()
	cells, err := boc.DeserializeBoc(blockBOC)
	if err != nil {
		return 0, nil, err
	}
	if len(cells) != 1 {
		return 0, nil, errors.New("block: want 1 root cell")
	}
	var block tlb.Block
	if err := tlb.Unmarshal(cells[0], &block); err != nil {
		return 0, nil, err
	}
	for _, tx := range block.AllTransactions() {
		if !tx.Msgs.InMsg.Exists || tx.Msgs.InMsg.Value.Value.Info.SumType != "ExtInMsgInfo" {
			continue
		}
		in := tx.Msgs.InMsg.Value.Value
		body := boc.Cell(in.Body.Value)
		b64, err := body.ToBocBase64()
		if err != nil {
			return 0, nil, err
		}
		charged, err := txFees(tx)
		if err != nil {
			return 0, nil, err
		}
		mc := boc.NewCell()
		if err := tlb.Marshal(mc, in); err != nil {
			return 0, nil, err
		}
		whole, err := mc.ToBocBase64()
		if err != nil {
			return 0, nil, err
		}
		msgs = append(msgs, ExternalMessage{
			Account:   ton.AccountID{Workchain: block.Info.Shard.WorkchainID, Address: tx.AccountAddr},
			Body:      b64,
			BodyByRef: in.Body.IsRight,
			Charged:   charged,
			Message:   whole,
		})
	}
	return block.Info.GenUtime, msgs, nil
}

// ByRefSurcharge is how much more the chain charges to import m's body by
// reference than the tonlib layout an estimate uses (body inline), under the
// config cfgBOC: the price of the one extra cell, or 0 when m's body was
// inline or does not fit inline.
func ByRefSurcharge(cfgBOC []byte, m ExternalMessage) (uint64, error) {
	if !m.BodyByRef {
		return 0, nil
	}
	raw, err := base64.StdEncoding.DecodeString(m.Body)
	if err != nil {
		return 0, err
	}
	body, err := decodeRoot(raw)
	if err != nil {
		return 0, err
	}
	inline := externalMessage(m.Account, body, nil, false)
	if !fitsOneCell(inline) {
		return 0, nil
	}
	in, err := importPrice(cfgBOC, inline)
	if err != nil {
		return 0, err
	}
	ref, err := importPrice(cfgBOC, externalMessage(m.Account, body, nil, true))
	if err != nil {
		return 0, err
	}
	return ref - in, nil
}

// importPrice is the chain's import fee of a message from config param 25:
// lump + ceil((bit_price*bits + cell_price*cells) / 2^16), counting the
// distinct cells below the root (the root cell is free). Estimates get it
// from the emulator; this independent formula checks the layouts.
func importPrice(cfgBOC []byte, m tlb.Message) (uint64, error) {
	cells, err := boc.DeserializeBoc(cfgBOC)
	if err != nil {
		return 0, err
	}
	var params tlb.ConfigParams
	if err := tlb.Unmarshal(cells[0], &params.Config); err != nil {
		return 0, err
	}
	conf, _, err := ton.ConvertBlockchainConfig(params, true)
	if err != nil {
		return 0, err
	}
	if conf.ConfigParam25 == nil {
		return 0, errors.New("config has no param 25")
	}
	p := conf.ConfigParam25.MsgForwardPrices
	root := boc.NewCell()
	if err := tlb.Marshal(root, m); err != nil {
		return 0, err
	}
	seen := map[[32]byte]bool{}
	var nCells, nBits uint64
	var walk func(c *boc.Cell) error
	walk = func(c *boc.Cell) error {
		for _, ref := range c.Refs() {
			h, err := ref.Hash256()
			if err != nil {
				return err
			}
			if seen[h] {
				continue
			}
			seen[h] = true
			nCells++
			nBits += uint64(ref.BitSize())
			if err := walk(ref); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return 0, err
	}
	return p.LumpPrice + (p.BitPrice*nBits+p.CellPrice*nCells+0xffff)>>16, nil
}
