package contracts

import (
	"context"
	"math/big"
	"reflect"
	"slices"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/getmethod"
)

// MultisigV2Code is the hash of multisig v2's code (ton-blockchain's
// multisig-contract-v2), the one code toncenter's indexer and tongo's ABI
// know it by.
var MultisigV2Code = chain.Hash(ton.MustParseHash("d3d14da9a627f0ec3533341829762af92b9540b21bf03665fac09c2b46eabbac"))

// MultisigOrderCode is the hash of its orders' code: a library cell (the
// library 6305a806... holds the code), so get_order_data runs only with
// that library in the config the runner has; without it the state is
// unreadable (unknown), never guessed.
var MultisigOrderCode = chain.Hash(ton.MustParseHash("a01e057fbd4288402b9898d78d67bd4e90254c93c5866879bc2d1d12865436bc"))

// readMultisig runs get_multisig_data on a multisig v2 state; ok false
// when it does not answer in that contract's layout.
func (rd *Reader) readMultisig(ctx context.Context, st *chain.AccountState) (m chain.Multisig, ok bool, err error) {
	s, ok, err := rd.call(ctx, st, getmethod.GetMultisigData)
	if err != nil || !ok {
		return m, false, err
	}
	m, ok = multisigData(s)
	return m, ok, nil
}

// multisigData decodes get_multisig_data (next order seqno, threshold,
// signers dictionary, proposers dictionary or null) with tongo's ABI
// types.
func multisigData(s tlb.VmStack) (m chain.Multisig, ok bool) {
	_, v, err := abi.DecodeGetMultisigDataResult(s)
	if err != nil {
		return m, false
	}
	r, ok := v.(abi.GetMultisigDataResult)
	if !ok {
		return m, false
	}
	signers, ok := indexed(r.Signers.Signers.Items())
	if !ok || len(signers) == 0 {
		return m, false
	}
	var proposers []string
	if r.Proposers != nil {
		if proposers, ok = indexed(r.Proposers.Proposers.Items()); !ok {
			return m, false
		}
	}
	seqno := big.Int(r.Seqno)
	return chain.Multisig{NextOrderSeqno: seqno.String(), Threshold: int(r.Threshold), Signers: signers,
		Proposers: proposers}, true
}

// indexed is a signer or proposer dictionary's addresses in index order.
func indexed(items []tlb.HashmapItem[tlb.Uint8, tlb.MsgAddress]) ([]string, bool) {
	slices.SortFunc(items, func(a, b tlb.HashmapItem[tlb.Uint8, tlb.MsgAddress]) int { return int(a.Key) - int(b.Key) })
	out := make([]string, 0, len(items))
	for _, it := range items {
		id, err := ton.AccountIDFromTlb(it.Value)
		if err != nil || id == nil {
			return nil, false
		}
		out = append(out, chain.RawAddress(*id))
	}
	return out, true
}

// readOrder runs get_order_data on a multisig v2 order's state; ok false
// when it does not answer in that contract's layout.
func (rd *Reader) readOrder(ctx context.Context, st *chain.AccountState) (o chain.MultisigOrder, ok bool, err error) {
	s, ok, err := rd.call(ctx, st, getmethod.GetOrderData)
	if err != nil || !ok {
		return o, false, err
	}
	o, ok = orderData(s)
	return o, ok, nil
}

// orderStack is get_order_data's answer as tongo's abi.GetOrderDataResult
// reads it, but with the order as a plain cell: the typed
// abi.MultisigOrder fails on an action it does not know, and such an
// order is still an order (toncenter lists it and shows the action's
// parse error; toncenter.OrderActions does the same).
type orderStack struct {
	MultisigAddress  tlb.MsgAddress
	OrderSeqno       tlb.Int256
	Threshold        uint8
	SentForExecution bool
	Signers          tlb.Hashmap[tlb.Uint8, tlb.MsgAddress]
	ApprovalsMask    tlb.Int256
	ApprovalsNum     uint8
	ExpirationDate   uint64
	Order            tlb.Any
}

// orderData decodes get_order_data (multisig, order seqno, threshold,
// sent for execution, signers, approvals mask and count, expiration, the
// order cell).
func orderData(s tlb.VmStack) (o chain.MultisigOrder, ok bool) {
	var r orderStack
	// The order code answers exactly these nine values.
	if s.Len() != reflect.TypeFor[orderStack]().NumField() || s.Unmarshal(&r) != nil {
		return o, false
	}
	owner, err := ton.AccountIDFromTlb(r.MultisigAddress)
	if err != nil || owner == nil {
		return o, false
	}
	signers, ok := indexed(r.Signers.Items())
	if !ok {
		return o, false
	}
	order := boc.Cell(r.Order)
	order.ResetCounters()
	raw, err := order.ToBoc()
	if err != nil {
		return o, false
	}
	seqno, mask := big.Int(r.OrderSeqno), big.Int(r.ApprovalsMask)
	return chain.MultisigOrder{Multisig: chain.RawAddress(*owner), OrderSeqno: seqno.String(), ApprovalsMask: mask.String(),
		Threshold: int(r.Threshold), ApprovalsNum: int(r.ApprovalsNum), SentForExecution: r.SentForExecution,
		ExpirationDate: r.ExpirationDate, Signers: signers, Order: raw}, true
}
