package actions

import (
	"encoding/base64"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// jettonTransferHead: transfer#0f8a7ea5 query_id:uint64 amount:(VarUInteger 16)
// destination:MsgAddress response_destination:MsgAddress
// custom_payload:(Maybe ^Cell) forward_ton_amount:(VarUInteger 16), then
// forward_payload:(Either Cell ^Cell), read by eitherPayload.
type jettonTransferHead struct {
	Op            uint32
	QueryID       uint64
	Amount        tlb.VarUInteger16
	Dest          tlb.MsgAddress
	Response      tlb.MsgAddress
	Custom        tlb.Maybe[tlb.Ref[boc.Cell]]
	ForwardAmount tlb.VarUInteger16
}

// nftTransferHead: transfer#5fcc3d14 query_id:uint64 new_owner:MsgAddress
// response_destination:MsgAddress custom_payload:(Maybe ^Cell)
// forward_amount:(VarUInteger 16), then forward_payload:(Either Cell ^Cell).
type nftTransferHead struct {
	Op            uint32
	QueryID       uint64
	NewOwner      tlb.MsgAddress
	Response      tlb.MsgAddress
	Custom        tlb.Maybe[tlb.Ref[boc.Cell]]
	ForwardAmount tlb.VarUInteger16
}

func (h *jettonTransferHead) custom() tlb.Maybe[tlb.Ref[boc.Cell]] { return h.Custom }
func (h *nftTransferHead) custom() tlb.Maybe[tlb.Ref[boc.Cell]]    { return h.Custom }

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

func jettonPayloads(body []byte) payloads { return transferPayloads(body, &jettonTransferHead{}) }

func nftPayloads(body []byte) payloads { return transferPayloads(body, &nftTransferHead{}) }

// transferPayloads decodes the head of a transfer request, then reads the
// forward payload where the head ends.
func transferPayloads(body []byte, head interface {
	custom() tlb.Maybe[tlb.Ref[boc.Cell]]
}) payloads {
	var p payloads
	root := readBody(body)
	if root == nil || !unmarshalCell(root, head) {
		return p
	}
	if c := head.custom(); c.Exists {
		p.custom = cellBase64(&c.Value.Value)
	}
	fwd := eitherPayload(root)
	if fwd == nil {
		return p
	}
	p.forward = cellBase64(fwd)
	p.comment, p.isComment, p.encrypted = payloadComment(fwd)
	return p
}

// setComment fills a value's comment fields from the payloads.
func (p payloads) setComment(comment *Text, encrypted **bool) {
	if p.isComment {
		*comment, *encrypted = Text(p.comment), flag(p.encrypted)
	}
}

// eitherPayload reads a payload:(Either Cell ^Cell) where c's cursor stands:
// the rest of the cell, or its next reference; nil when nothing is left or
// the layout is broken. (tlb's generic decoding of an inline Cell keeps the
// whole cell, whose payload then starts with the message's own op code.)
func eitherPayload(c *boc.Cell) (p *boc.Cell) {
	defer func() {
		if recover() != nil {
			p = nil
		}
	}()
	if c.BitsAvailableForRead() == 0 {
		return nil
	}
	right, err := c.ReadBit()
	if err != nil {
		return nil
	}
	if right {
		ref, err := c.NextRef()
		if err != nil {
			return nil
		}
		return ref
	}
	return c.CopyRemaining()
}

// payloadComment reads a forward payload that is a text comment (op 0) or
// an encrypted comment (op 0x2167da4b, whose text stays unknown).
func payloadComment(c *boc.Cell) (text string, isComment, encrypted bool) {
	c.ResetCounters()
	op, err := c.PickUint(32)
	if err != nil {
		return "", false, false
	}
	switch uint32(op) {
	case uint32(abi.TextCommentMsgOpCode):
		var v struct {
			Op   uint32
			Text tlb.Text
		}
		if unmarshalCell(c, &v) {
			return string(v.Text), true, false
		}
	case uint32(abi.EncryptedTextCommentMsgOpCode):
		return "", true, true
	}
	return "", false, false
}

// readBody is the root cell of a body BOC, nil when it is not one cell.
func readBody(body []byte) (c *boc.Cell) {
	defer func() {
		if recover() != nil {
			c = nil
		}
	}()
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return nil
	}
	return cells[0]
}

// forwardPayload is the forward payload cell of the jetton transfer request
// n received (inline or in a reference), read from the raw body; nil when n
// is not a transfer request.
func forwardPayload(n *node) *boc.Cell {
	if n == nil || !n.is(abi.JettonTransferMsgOpCode) {
		return nil
	}
	if !n.decode(&jettonTransferHead{}) {
		return nil
	}
	return eitherPayload(n.bodyCell())
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
