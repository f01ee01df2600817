package tonconnect

import (
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/apperr"
)

// Highload wallets keep no seqno: each message carries a query id the
// wallet remembers for a while and refuses twice. A preview picks the
// first id the wallet's data does not hold yet, so the message is one the
// wallet accepts now (a wallet app picks its own; the fees do not depend
// on which, the ids are fixed-width).

// HighloadV3CodeHash is the code of highload wallet v3 (v3.00 of
// ton-blockchain/highload-wallet-contract-v3), the hash tongo's abi knows
// as wallet_highload_v3r1; tongo's wallet package has no v3.
var HighloadV3CodeHash = ton.MustParseHash("11acad7955844090f283bf238bc1449871f783e7cc0979408d3f4859483e8525")

// HighloadV3Name is v3's name in Built.Type (tongo's abi's; v2's are
// tongo's wallet versions' names).
const HighloadV3Name = "highload_v3r1"

// opInternalTransfer is highload v3's message to itself that carries an
// action list (its internal_transfer#ae42e5a4).
const opInternalTransfer = 0xae42e5a4

// highloadV3Data is the wallet's storage (its scheme.tlb; the code reads
// the query dictionaries with 13-bit keys).
type highloadV3Data struct {
	PublicKey     tlb.Bits256
	SubwalletID   uint32
	OldQueries    tlb.HashmapE[tlb.Uint13, tlb.Ref[tlb.Any]]
	Queries       tlb.HashmapE[tlb.Uint13, tlb.Ref[tlb.Any]]
	LastCleanTime uint64
	Timeout       tlb.Uint22
}

// isHighload reports whether code is a highload wallet this package
// writes for, and its name.
func isHighload(code *boc.Cell) (string, bool) {
	if code == nil {
		return "", false
	}
	h, err := code.Hash256()
	if err != nil {
		return "", false
	}
	if h == HighloadV3CodeHash {
		return HighloadV3Name, true
	}
	v, known := wallet.GetVerByCodeHash(tlb.Bits256(h))
	if known && (v == wallet.HighLoadV2 || v == wallet.HighLoadV2R1 || v == wallet.HighLoadV2R2) {
		// one message format for the three (highload-wallet-v2-code.fc)
		return v.ToString(), true
	}
	return "", false
}

// highloadBody is the unsigned body (zero signature) a highload wallet
// with this data sends msgs with; until is the message's valid_until
// (v2's query id carries it), now the chain time the preview runs at
// (v3's created_at must not be later). self is the wallet's address.
func highloadBody(name string, data *boc.Cell, msgs []wallet.RawMessage, self ton.AccountID, until, now uint32) (*boc.Cell, error) {
	if name == HighloadV3Name {
		return highloadV3Body(data, msgs, self, now)
	}
	var d wallet.DataHighloadV2
	if err := tlb.Unmarshal(data, &d); err != nil {
		return nil, apperr.Field("from", "the %s wallet's data does not decode: %v", name, err)
	}
	// query_id = valid_until << 32 | n: the wallet refuses one whose
	// valid_until has passed and any it still remembers.
	qid := uint64(until) << 32
	used := map[uint64]bool{}
	for _, k := range d.Queries.Keys() {
		used[uint64(k)] = true
	}
	for used[qid] {
		qid++
	}
	inner := boc.NewCell()
	if err := tlb.Marshal(inner, wallet.HighloadV2Message{SubWalletId: d.SubWalletId, BoundedQueryID: qid,
		RawMessages: wallet.PayloadHighload(msgs)}); err != nil {
		return nil, apperr.Field("messages", "the wallet's message cannot be built: %v", err)
	}
	return signed(inner, false)
}

// highloadV3Body: v3 sends one message per external, and never one with
// a StateInit. One message without StateInit goes as it is (what the
// chain's highload v3 wallets send); several, or one with a StateInit, go
// as an action list in an internal_transfer to the wallet itself, which
// its second transaction sends (the contract's own batch: the message
// carries the remaining balance, mode 128, and the wallet keeps what the
// actions do not spend).
func highloadV3Body(data *boc.Cell, msgs []wallet.RawMessage, self ton.AccountID, now uint32) (*boc.Cell, error) {
	var d highloadV3Data
	if err := tlb.Unmarshal(data, &d); err != nil {
		return nil, apperr.Field("from", "the %s wallet's data does not decode: %v", HighloadV3Name, err)
	}
	shift, bit, ok := nextQueryID(d)
	if !ok {
		return nil, apperr.Field("from", "the %s wallet holds every query id: none is free until it cleans", HighloadV3Name)
	}
	toSend, mode := msgs[0].Message, msgs[0].Mode
	if len(msgs) > 1 || hasInit(toSend) {
		var err error
		if toSend, err = toSelf(msgs, self, uint64(shift)<<10|uint64(bit)); err != nil {
			return nil, err
		}
		mode = 128
	}
	inner := boc.NewCell()
	for _, w := range []struct {
		v    uint64
		bits int
	}{{uint64(d.SubwalletID), 32}, {uint64(mode), 8}, {uint64(shift), 13}, {uint64(bit), 10}, {uint64(now), 64}, {uint64(d.Timeout), 22}} {
		if err := inner.WriteUint(w.v, w.bits); err != nil {
			return nil, apperr.Wrap(apperr.Internal, err, "internal error")
		}
	}
	if err := inner.AddRef(toSend); err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	return signed(inner, true)
}

// signed puts the (zero) signature before inner: in the same cell (v2,
// signing the rest of the body) or with inner by reference (v3, signing
// the referenced cell's hash).
func signed(inner *boc.Cell, byRef bool) (*boc.Cell, error) {
	if !byRef {
		c := boc.NewCell()
		if err := tlb.Marshal(c, wallet.SignedMsgBody{Message: tlb.Any(*inner)}); err != nil {
			return nil, apperr.Field("messages", "the wallet's message cannot be built: %v", err)
		}
		return c, nil
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, tlb.Bits512{}); err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	if err := c.AddRef(inner); err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	return c, nil
}

// nextQueryID is the query id (shift, bit number) after the highest the
// wallet remembers, in the order the contract's own query iterator counts
// (bit numbers 0..1022, then the next shift): what the chain's highload v3
// wallets send next. Past the last id, the first free one.
func nextQueryID(d highloadV3Data) (shift, bit uint16, ok bool) {
	old, cur := bitsOf(d.OldQueries), bitsOf(d.Queries)
	next := 0 // shift*1023 + bit number
	for _, q := range []queryBits{old, cur} {
		for s := range q {
			for b := 1022; b >= 0; b-- {
				if id := int(s)*1023 + b; q.has(id) {
					next = max(next, id+1)
					break
				}
			}
		}
	}
	const ids = 1 << 13 * 1023
	for i := range ids {
		if id := (next + i) % ids; !old.has(id) && !cur.has(id) {
			return uint16(id / 1023), uint16(id % 1023), true
		}
	}
	return 0, 0, false
}

// queryBits are a query dictionary's cells: shift -> its bits, one per
// bit number, set when that query was processed.
type queryBits map[uint16]boc.BitString

func bitsOf(m tlb.HashmapE[tlb.Uint13, tlb.Ref[tlb.Any]]) queryBits {
	q := queryBits{}
	for _, it := range m.Items() {
		c := boc.Cell(it.Value.Value)
		q[uint16(it.Key)] = c.RawBitString()
	}
	return q
}

func (q queryBits) has(id int) bool {
	bs, ok := q[uint16(id/1023)]
	n := id % 1023
	if !ok || n >= bs.GetWriteCursor() {
		return false
	}
	return bs.Buffer()[n/8]&(0x80>>(n%8)) != 0
}

// hasInit reports whether an internal message cell carries a StateInit.
func hasInit(c *boc.Cell) bool {
	var m tlb.Message
	defer c.ResetCounters()
	return tlb.Unmarshal(c, &m) == nil && m.Init.Exists
}

// toSelf is v3's internal_transfer to itself carrying msgs as its actions.
func toSelf(msgs []wallet.RawMessage, self ton.AccountID, queryID uint64) (*boc.Cell, error) {
	actions, err := outList(msgs)
	if err != nil {
		return nil, apperr.Field("messages", "the wallet's message cannot be built: %v", err)
	}
	transfer := boc.NewCell()
	if err := transfer.WriteUint(opInternalTransfer, 32); err == nil {
		if err = transfer.WriteUint(queryID, 64); err == nil {
			err = transfer.AddRef(actions)
		}
	}
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	tb, err := transfer.ToBoc()
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	c, err := internal(message{dest: self, bounce: true, payload: tb})
	if err != nil {
		return nil, apperr.Field("messages", "the wallet's message cannot be built: %v", err)
	}
	return c, nil
}

// outList is TVM's OutList of msgs: each action_send_msg#0ec3c86d
// mode:uint8 ^message, after a reference to the list before it.
func outList(msgs []wallet.RawMessage) (*boc.Cell, error) {
	list := boc.NewCell() // out_list_empty
	for _, m := range msgs {
		next := boc.NewCell()
		if err := next.AddRef(list); err != nil {
			return nil, err
		}
		if err := next.WriteUint(0x0ec3c86d, 32); err != nil {
			return nil, err
		}
		if err := next.WriteUint(uint64(m.Mode), 8); err != nil {
			return nil, err
		}
		if err := next.AddRef(m.Message); err != nil {
			return nil, err
		}
		list = next
	}
	if len(msgs) > 255 {
		return nil, fmt.Errorf("%d messages; an action list holds at most 255", len(msgs))
	}
	return list, nil
}
