package actions

import (
	"encoding/base64"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// transferTail is what TEP-74 jetton and TEP-62 NFT transfer requests end
// with: custom_payload:(Maybe ^Cell) forward_ton_amount:(VarUInteger 16)
// forward_payload:(Either Cell ^Cell).
type transferTail struct {
	Custom  tlb.Maybe[tlb.Ref[boc.Cell]]
	Amount  tlb.VarUInteger16
	Forward tlb.EitherRef[boc.Cell]
}

// jettonTransferHead: transfer#0f8a7ea5 query_id:uint64 amount:(VarUInteger 16)
// destination:MsgAddress response_destination:MsgAddress, then the tail.
type jettonTransferHead struct {
	Op       uint32
	QueryID  uint64
	Amount   tlb.VarUInteger16
	Dest     tlb.MsgAddress
	Response tlb.MsgAddress
	Tail     transferTail
}

// nftTransferHead: transfer#5fcc3d14 query_id:uint64 new_owner:MsgAddress
// response_destination:MsgAddress, then the tail.
type nftTransferHead struct {
	Op       uint32
	QueryID  uint64
	NewOwner tlb.MsgAddress
	Response tlb.MsgAddress
	Tail     transferTail
}

// payloads are a transfer's custom and forward payloads as base64 BOCs, ""
// when absent or empty. They are read from the raw body rather than from
// abi's decoded struct, which parses known payloads and drops the rest.
// A forward payload that is a comment also gives its text (encrypted
// comments give only the flag).
type payloads struct {
	custom, forward string
	comment         string
	isComment       bool
	encrypted       bool
}

func jettonPayloads(body []byte) payloads {
	var v jettonTransferHead
	if !decodePrefix(body, &v) {
		return payloads{}
	}
	return v.Tail.payloads()
}

func nftPayloads(body []byte) payloads {
	var v nftTransferHead
	if !decodePrefix(body, &v) {
		return payloads{}
	}
	return v.Tail.payloads()
}

func (t transferTail) payloads() payloads {
	var p payloads
	if t.Custom.Exists {
		p.custom = cellBase64(&t.Custom.Value.Value)
	}
	fwd := &t.Forward.Value
	p.forward = cellBase64(fwd)
	fwd.ResetCounters()
	if op, err := fwd.PickUint(32); err == nil {
		switch uint32(op) {
		case uint32(abi.TextCommentMsgOpCode):
			var v struct {
				Op   uint32
				Text tlb.Text
			}
			if tlb.Unmarshal(fwd, &v) == nil {
				p.comment, p.isComment = string(v.Text), true
			}
		case uint32(abi.EncryptedTextCommentMsgOpCode):
			p.isComment, p.encrypted = true, true
		}
	}
	return p
}

// setComment fills a value's comment fields from the payloads.
func (p payloads) setComment(comment *string, encrypted **bool) {
	if p.isComment {
		*comment, *encrypted = p.comment, flag(p.encrypted)
	}
}

// forwardPayload is the forward payload cell of the jetton transfer request
// n received (inline or in a reference), read from the raw body; nil when n
// is not a transfer request.
func forwardPayload(n *node) *boc.Cell {
	var v jettonTransferHead
	if n == nil || !n.is(abi.JettonTransferMsgOpCode) || !decodePrefix(n.in().Body, &v) {
		return nil
	}
	c := &v.Tail.Forward.Value
	c.ResetCounters()
	return c
}

// cellBase64 is a cell as a base64 BOC, "" for an empty cell.
func cellBase64(c *boc.Cell) string {
	c.ResetCounters()
	if c.BitSize() == 0 && c.RefsSize() == 0 {
		return ""
	}
	b, err := c.ToBoc()
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}
