package chain

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// ParseTransactionBOC decodes one raw transaction (a BOC with one root).
// A lone transaction does not carry its workchain; it is taken from the
// in-message destination or an out-message source, and defaults to 0.
func ParseTransactionBOC(b []byte) (*Transaction, error) {
	tx, _, err := DecodeTransactionBOC(b, nil)
	return tx, err
}

// DecodeTransactionBOC decodes one raw transaction and returns tongo's
// TL-B value beside it, for callers that show fields Transaction does not
// keep; wc is the account's workchain when the caller knows it (a stored
// row), nil to guess it as ParseTransactionBOC does.
func DecodeTransactionBOC(b []byte, wc *int32) (tx *Transaction, raw *tlb.Transaction, err error) {
	defer recoverDecode("transaction", &err)
	cells, err := boc.DeserializeBoc(b)
	if err != nil {
		return nil, nil, fmt.Errorf("transaction BOC: %w", err)
	}
	if len(cells) != 1 {
		return nil, nil, fmt.Errorf("transaction BOC: want 1 root, got %d", len(cells))
	}
	raw = &tlb.Transaction{}
	if err := tlb.Unmarshal(cells[0], raw); err != nil {
		return nil, nil, fmt.Errorf("transaction: %w", err)
	}
	w := guessWorkchain(raw)
	if wc != nil {
		w = *wc
	}
	if tx, err = TransactionFromTLB(raw, w); err != nil {
		return nil, nil, err
	}
	return tx, raw, nil
}

// recoverDecode turns a panic inside tongo's decoders (reachable with
// crafted bytes) into an error, so bad input never takes the process down.
func recoverDecode(what string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: malformed data (%v)", what, r)
	}
}

func guessWorkchain(raw *tlb.Transaction) int32 {
	if raw.Msgs.InMsg.Exists {
		if _, dst := msgEnds(&raw.Msgs.InMsg.Value.Value); dst != nil {
			return dst.Workchain
		}
	}
	for _, m := range raw.Msgs.OutMsgs.Values() {
		if src, _ := msgEnds(&m.Value); src != nil {
			return src.Workchain
		}
	}
	return 0
}

// msgEnds returns the accounts a message goes from and to; nil for the
// missing end of an external message.
func msgEnds(m *tlb.Message) (src, dst *ton.AccountID) {
	switch m.Info.SumType {
	case "IntMsgInfo":
		src, _ = ton.AccountIDFromTlb(m.Info.IntMsgInfo.Src)
		dst, _ = ton.AccountIDFromTlb(m.Info.IntMsgInfo.Dest)
	case "ExtInMsgInfo":
		dst, _ = ton.AccountIDFromTlb(m.Info.ExtInMsgInfo.Dest)
	case "ExtOutMsgInfo":
		src, _ = ton.AccountIDFromTlb(m.Info.ExtOutMsgInfo.Src)
	}
	return src, dst
}

// TransactionFromTLB converts a decoded transaction of an account in the
// given workchain. The raw BOC is kept when the transaction came from a cell.
func TransactionFromTLB(raw *tlb.Transaction, workchain int32) (tx *Transaction, err error) {
	defer recoverDecode("transaction", &err)
	tx = &Transaction{
		Hash:       Hash(raw.Hash()),
		Account:    RawAddress(ton.AccountID{Workchain: workchain, Address: raw.AccountAddr}),
		Lt:         raw.Lt,
		Utime:      raw.Now,
		PrevHash:   Hash(raw.PrevTransHash),
		PrevLt:     raw.PrevTransLt,
		OrigStatus: string(raw.OrigStatus),
		EndStatus:  string(raw.EndStatus),
		TotalFees:  uint64(raw.TotalFees.Grams),
	}
	if b, err := raw.SourceBoc(); err == nil {
		tx.BOC = b
	}
	if raw.Msgs.InMsg.Exists {
		m, err := MessageFromTLB(&raw.Msgs.InMsg.Value.Value)
		if err != nil {
			return nil, fmt.Errorf("in message: %w", err)
		}
		tx.InMsg = &m
	}
	outs := raw.Msgs.OutMsgs.Values()
	tx.OutMsgs = make([]Message, 0, len(outs))
	// Out-messages are keyed by their index, and Values() is in key order,
	// which is the order the contract sent them.
	for i := range outs {
		m, err := MessageFromTLB(&outs[i].Value)
		if err != nil {
			return nil, fmt.Errorf("out message %d: %w", i, err)
		}
		tx.OutMsgs = append(tx.OutMsgs, m)
	}
	fillPhases(tx, &raw.Description)
	return tx, nil
}

// fillPhases copies the compute, action and bounce outcome. Storage and
// tick-tock transactions have no message to process: their compute phase
// (if any) counts, and a missing one reads as skipped.
func fillPhases(tx *Transaction, d *tlb.TransactionDescr) {
	var (
		compute *tlb.TrComputePhase
		action  tlb.Maybe[tlb.Ref[tlb.TrActionPhase]]
	)
	switch d.SumType {
	case "TransOrd":
		o := &d.TransOrd
		compute, action = &o.ComputePh, o.Action
		tx.Aborted, tx.Destroyed, tx.Bounced = o.Aborted, o.Destroyed, o.Bounce.Exists
	case "TransTickTock":
		o := &d.TransTickTock
		compute, action = &o.ComputePh, o.Action
		tx.Aborted, tx.Destroyed = o.Aborted, o.Destroyed
	case "TransSplitPrepare":
		o := d.TransSplitPrepare
		compute, action = &o.ComputePh, o.Action
		tx.Aborted, tx.Destroyed = o.Aborted, o.Destroyed
	case "TransMergeInstall":
		o := d.TransMergeInstall
		compute, action = &o.ComputePh, o.Action
		tx.Aborted, tx.Destroyed = o.Aborted, o.Destroyed
	default:
		tx.ComputeSkipped = true
		tx.ActionSuccess = true
		return
	}
	if compute.SumType == "TrPhaseComputeVm" {
		vm := &compute.TrPhaseComputeVm
		tx.ComputeSuccess = vm.Success
		tx.ComputeExitCode = vm.Vm.ExitCode
	} else {
		tx.ComputeSkipped = true
	}
	if action.Exists {
		tx.ActionSuccess = action.Value.Value.Success
		tx.ActionResult = action.Value.Value.ResultCode
	}
}

// MessageFromTLB converts one message, keeping its body and StateInit as BOCs.
func MessageFromTLB(m *tlb.Message) (msg Message, err error) {
	defer recoverDecode("message", &err)
	msg.Hash = Hash(m.Hash(false))
	switch m.Info.SumType {
	case "IntMsgInfo":
		i := m.Info.IntMsgInfo
		msg.Source = tlbAddress(i.Src)
		msg.Destination = tlbAddress(i.Dest)
		msg.Value = uint64(i.Value.Grams)
		for _, id := range i.Value.Other.Dict.Keys() {
			v, _ := i.Value.Other.Dict.Get(id)
			if msg.ExtraCurrencies == nil {
				msg.ExtraCurrencies = map[uint32]string{}
			}
			amount := big.Int(v)
			msg.ExtraCurrencies[uint32(id)] = amount.String()
		}
		msg.FwdFee = uint64(i.FwdFee)
		if ihr := big.Int(i.IhrFee); ihr.IsUint64() {
			msg.IhrFee = ihr.Uint64()
		}
		msg.CreatedLt, msg.CreatedAt = i.CreatedLt, i.CreatedAt
		msg.Bounce, msg.Bounced = i.Bounce, i.Bounced
	case "ExtInMsgInfo":
		msg.Destination = tlbAddress(m.Info.ExtInMsgInfo.Dest)
		msg.HashNorm = Hash(m.Hash(true))
	case "ExtOutMsgInfo":
		i := m.Info.ExtOutMsgInfo
		msg.Source = tlbAddress(i.Src)
		msg.CreatedLt, msg.CreatedAt = i.CreatedLt, i.CreatedAt
	default:
		return msg, errors.New("unknown message kind")
	}
	body := boc.Cell(m.Body.Value)
	body.ResetCounters()
	if body.BitSize() > 0 || body.RefsSize() > 0 {
		if msg.Body, err = body.ToBoc(); err != nil {
			return msg, fmt.Errorf("body: %w", err)
		}
		if body.BitSize() >= 32 {
			op, _ := body.PickUint(32)
			op32 := uint32(op)
			msg.Opcode = &op32
		}
	}
	if m.Init.Exists {
		c := boc.NewCell()
		if err := tlb.Marshal(c, m.Init.Value.Value); err != nil {
			return msg, fmt.Errorf("state init: %w", err)
		}
		if msg.InitState, err = c.ToBoc(); err != nil {
			return msg, fmt.Errorf("state init: %w", err)
		}
	}
	return msg, nil
}

// tlbAddress is the raw upper-case form of an internal address, "" for none
// or an external address (which has no account behind it).
func tlbAddress(a tlb.MsgAddress) string {
	id, err := ton.AccountIDFromTlb(a)
	if err != nil || id == nil {
		return ""
	}
	return RawAddress(*id)
}
