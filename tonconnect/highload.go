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

// highloadV3Body: v3 sends one message per external, with no StateInit;
// the request's messages go as an action list in an internal_transfer to
// the wallet itself, which its second transaction sends (what the
// contract's own batch wrapper does: the message carries the remaining
// balance, mode 128, and the wallet keeps what the actions do not spend).
func highloadV3Body(data *boc.Cell, msgs []wallet.RawMessage, self ton.AccountID, now uint32) (*boc.Cell, error) {
	var d highloadV3Data
	if err := tlb.Unmarshal(data, &d); err != nil {
		return nil, apperr.Field("from", "the %s wallet's data does not decode: %v", HighloadV3Name, err)
	}
	shift, bit, ok := freeQueryID(d)
	if !ok {
		return nil, apperr.Field("from", "the %s wallet holds every query id: none is free until it cleans", HighloadV3Name)
	}
	queryID := uint64(shift)<<10 | uint64(bit)
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
	toSelf, err := internal(message{dest: self, bounce: true, payload: tb})
	if err != nil {
		return nil, apperr.Field("messages", "the wallet's message cannot be built: %v", err)
	}
	inner := boc.NewCell()
	for _, w := range []struct {
		v    uint64
		bits int
	}{{uint64(d.SubwalletID), 32}, {128, 8}, {uint64(shift), 13}, {uint64(bit), 10}, {uint64(now), 64}, {uint64(d.Timeout), 22}} {
		if err := inner.WriteUint(w.v, w.bits); err != nil {
			return nil, apperr.Wrap(apperr.Internal, err, "internal error")
		}
	}
	if err := inner.AddRef(toSelf); err != nil {
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

// freeQueryID is the first query id (shift, bit number) marked in neither
// of the wallet's dictionaries: free whether or not the message makes the
// wallet rotate them.
func freeQueryID(d highloadV3Data) (shift, bit uint16, ok bool) {
	for shift = 0; shift < 1<<13; shift++ {
		for bit = 0; bit < 1023; bit++ {
			if !marked(d.OldQueries, shift, bit) && !marked(d.Queries, shift, bit) {
				return shift, bit, true
			}
		}
	}
	return 0, 0, false
}

func marked(m tlb.HashmapE[tlb.Uint13, tlb.Ref[tlb.Any]], shift, bit uint16) bool {
	v, found := m.Get(tlb.Uint13(shift))
	if !found {
		return false
	}
	c := boc.Cell(v.Value)
	c.ResetCounters()
	if c.Skip(int(bit)) != nil {
		return false
	}
	b, err := c.ReadBit()
	return err == nil && b
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
