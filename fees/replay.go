package fees

import (
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
		msgs = append(msgs, ExternalMessage{
			Account:   ton.AccountID{Workchain: block.Info.Shard.WorkchainID, Address: tx.AccountAddr},
			Body:      b64,
			BodyByRef: in.Body.IsRight,
			Charged:   charged,
		})
	}
	return block.Info.GenUtime, msgs, nil
}
