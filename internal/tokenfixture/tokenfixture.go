// Package tokenfixture finds the tokens of a fee-replay fixture for tests:
// every account whose state answers get_jetton_data or get_collection_data
// (the get methods TEP-74 and TEP-62 define), with the content cell it
// returns. The get methods run on the fixture's states with the project's
// TVM runner, so nothing is chosen or typed in by hand.
package tokenfixture

import (
	"context"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
)

// ReplayBlock is the fixture path (relative to the fixtures folder) of the
// fee-replay block, whose states hold real jetton masters (Tonstakers'
// tsTON, a DeDust LP jetton) and an NFT collection (Fragment's).
const ReplayBlock = "fee-replay/tvm_replay_fat_block_66519406.json"

// Contents returns the tokens of the fee-replay file at path (a few
// seconds: every state runs two get methods).
func Contents(path string) ([]chain.TokenContent, error) {
	p, err := ingest.ParseFile(path)
	if err != nil {
		return nil, err
	}
	src := fees.NewMemorySource(p.Config)
	for i := range p.Accounts {
		src.Put(&p.Accounts[i])
	}
	at := time.Unix(int64(p.Config.Utime), 0)
	r := getmethod.New(fees.New(src, nil, fees.Options{Now: func() time.Time { return at }}))
	var out []chain.TokenContent
	for _, a := range p.Accounts {
		id, err := ton.ParseAccountID(a.Address)
		if err != nil {
			return nil, err
		}
		for _, m := range []struct {
			name, kind     string
			depth, content int
		}{
			// get_jetton_data: total_supply, mintable, admin, content, wallet_code
			{"get_jetton_data", chain.TokenJettonMaster, 5, 3},
			// get_collection_data: next_item_index, content, owner
			{"get_collection_data", chain.TokenNftCollection, 3, 1},
		} {
			res, err := r.Run(context.Background(), id, getmethod.Method{Name: m.name}, tlb.VmStack{})
			if err != nil || res.ExitCode != 0 || res.Stack.Len() != m.depth {
				continue
			}
			v := res.Stack.PeekBottom(m.content)
			if v.SumType != "VmStkCell" {
				continue
			}
			cell := v.VmStkCell.Value
			b, err := cell.ToBoc()
			if err != nil {
				return nil, err
			}
			h, err := chain.CellHash(&cell)
			if err != nil {
				return nil, err
			}
			out = append(out, chain.TokenContent{Address: chain.RawAddress(id), Kind: m.kind, ContentHash: h, Content: b})
		}
	}
	return out, nil
}

// Offchain encodes TEP-64 off-chain content linking uri (offchain#01,
// the uri in snake form) as a BOC, with tongo's TL-B encoder.
func Offchain(uri string) ([]byte, error) {
	var fc tlb.FullContent
	fc.SumType = "Offchain"
	bs := boc.NewBitString(len(uri) * 8)
	if err := bs.WriteBytes([]byte(uri)); err != nil {
		return nil, err
	}
	fc.Offchain.Uri = tlb.SnakeData(bs)
	c := boc.NewCell()
	if err := tlb.Marshal(c, fc); err != nil {
		return nil, err
	}
	return c.ToBoc()
}
