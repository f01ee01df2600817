package actions

import (
	"encoding/base64"
	"math/big"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Layouts of NFT messages and contract data that abi does not decode the
// way we need them. Every reader recovers from malformed input: bodies and
// states are untrusted bytes.

// teleitemBidInfoOp: teleitem_bid_info#38127de1 bid:Grams bid_ts:uint32,
// the payload of ownership_assigned when a Telemint auction ends.
const teleitemBidInfoOp = 0x38127de1

// assignedInfo is an ownership_assigned#05138d91 query_id:uint64
// prev_owner:MsgAddress forward_payload:(Either Cell ^Cell).
type assignedInfo struct {
	queryID   uint64
	prevOwner string
	payload   string // the forward payload as a base64 BOC, "" when empty
	hasBid    bool   // the payload is Telemint's teleitem_bid_info
	bid       BigInt
	comment   payloads // the payload's comment, when it is one
}

func assignedOf(n *node) (assignedInfo, bool) {
	var head struct {
		Op        uint32
		QueryID   uint64
		PrevOwner tlb.MsgAddress
	}
	var info assignedInfo
	root := n.bodyCell()
	if !unmarshalCell(root, &head) {
		return info, false
	}
	info.queryID, info.prevOwner = head.QueryID, addr(head.PrevOwner)
	p := eitherPayload(root)
	if p == nil {
		return info, true
	}
	info.payload = cellBase64(p)
	info.comment.comment, info.comment.isComment, info.comment.encrypted = payloadComment(p)
	p.ResetCounters()
	var bid struct {
		Op  uint32
		Bid tlb.VarUInteger16
		TS  uint32
	}
	if op, err := p.PickUint(32); err == nil && op == teleitemBidInfoOp && unmarshalCell(p, &bid) {
		info.hasBid, info.bid = true, amount(bid.Bid)
	}
	return info, true
}

// stateInit is a deploying message's StateInit: its code and data cells.
type stateInit struct {
	code *boc.Cell
	data *boc.Cell
}

// stateInit is n's in-message StateInit, read once: several matchers probe
// a deploy, and again when the steps of its action are sought. Readers of
// its cells rewind them first (unmarshalCell).
func (n *node) stateInit() (stateInit, bool) {
	if !n.initRead {
		n.initRead = true
		if m := n.in(); m != nil {
			n.init, n.initOK = stateInitOf(m.InitState)
		}
	}
	return n.init, n.initOK
}

// codeHash is the code's hash (standard base64, as toncenter keys contract
// versions), "" without code. Computed on demand: hashing a contract's
// code is most of what reading a StateInit costs, and most readers need
// only its data.
func (si stateInit) codeHash() string {
	if si.code == nil {
		return ""
	}
	h, err := si.code.Hash()
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(h)
}

func stateInitOf(b []byte) (si stateInit, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if len(b) == 0 {
		return si, false
	}
	cells, err := boc.DeserializeBoc(b)
	if err != nil || len(cells) != 1 {
		return si, false
	}
	var v tlb.StateInit
	if tlb.Unmarshal(cells[0], &v) != nil {
		return si, false
	}
	if v.Code.Exists {
		code := v.Code.Value.Value
		si.code = &code
	}
	if v.Data.Exists {
		data := v.Data.Value.Value
		si.data = &data
	}
	return si, si.data != nil
}

// itemInit is what an NFT item's initial data says: its index and the
// collection allowed to initialize it.
type itemInit struct {
	ok         bool
	index      BigInt
	collection string
}

// nftItemInit reads the initial data of an item a collection deploys: the
// standard item (and .ton DNS item) starts with index:uint256
// collection_address:MsgAddress; a Telemint item keeps them in its first
// reference (teleitem_config item_index:bits256 collection_address).
func nftItemInit(n *node) itemInit {
	si, ok := n.stateInit()
	if !ok {
		return itemInit{}
	}
	var v struct {
		Index      tlb.Uint256
		Collection tlb.MsgAddress
	}
	if si.data.BitSize() >= 256+267 && unmarshalCell(si.data, &v) {
		if col := addr(v.Collection); col != "" {
			i := big.Int(v.Index)
			return itemInit{ok: true, index: BigInt(i.String()), collection: col}
		}
	}
	si.data.ResetCounters()
	if si.data.BitSize() < 256 && si.data.RefsSize() > 0 {
		if ref, err := si.data.NextRef(); err == nil && unmarshalCell(ref, &v) {
			if col := addr(v.Collection); col != "" {
				i := big.Int(v.Index)
				return itemInit{ok: true, index: BigInt(i.String()), collection: col}
			}
		}
	}
	return itemInit{}
}
