package getmethod

import (
	"math/big"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// Readers of result stack entries, for callers that decode a standard
// get method's answer (the token registry). Each says ok false for an
// entry of another type, so a contract answering in another shape is told
// apart from one answering in the standard's.

// Int is an integer entry.
func Int(v tlb.VmStackValue) (*big.Int, bool) {
	if v.SumType != "VmStkTinyInt" && v.SumType != "VmStkInt" {
		return nil, false
	}
	return intOf(v), true
}

// Cell is a cell, builder or slice entry as a cell of its own.
func Cell(v tlb.VmStackValue) (*boc.Cell, bool) {
	switch v.SumType {
	case "VmStkCell", "VmStkBuilder", "VmStkSlice":
	default:
		return nil, false
	}
	c, err := cellOf(v)
	return c, err == nil
}

// Address is a slice holding a MsgAddress: the raw address, "" for
// addr_none (or an external address).
func Address(v tlb.VmStackValue) (addr string, ok bool) {
	defer func() {
		if recover() != nil {
			addr, ok = "", false
		}
	}()
	if v.SumType != "VmStkSlice" {
		return "", false
	}
	c, err := v.VmStkSlice.CellSafe()
	if err != nil {
		return "", false
	}
	var a tlb.MsgAddress
	if err := tlb.Unmarshal(c, &a); err != nil {
		return "", false
	}
	id, err := ton.AccountIDFromTlb(a)
	if err != nil {
		return "", false
	}
	if id == nil {
		return "", true
	}
	return chain.RawAddress(*id), true
}
