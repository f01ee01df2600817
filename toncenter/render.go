package toncenter

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// RenderTransaction renders a stored transaction in toncenter's shape.
// With the raw BOC every field is decoded from it (tongo's TL-B); without
// it (a row imported from trace JSON) the fields the row does not hold
// are null: prev_trans_hash, prev_trans_lt, description,
// account_state_before/after, and the messages' ihr_fee, ihr_disabled,
// import_fee (created_at when the JSON gave it). block_ref is the block that holds it when the
// transaction was read from a raw block, else null (docs/API-NOTES.md).
func RenderTransaction(t *chain.Transaction) (*Transaction, error) {
	out := &Transaction{
		Account: t.Account, Hash: t.Hash.Base64(), Lt: u64(t.Lt), Now: int64(t.Utime),
		OrigStatus: t.OrigStatus, EndStatus: t.EndStatus, TotalFees: u64(t.TotalFees),
		TotalFeesExtraCurrencies: map[string]string{}, OutMsgs: []*Message{},
		Finality: "finalized",
	}
	if t.McSeqno != 0 {
		n := int64(t.McSeqno)
		out.McBlockSeqno = &n
	}
	if !t.TraceID.IsZero() {
		s := t.TraceID.Base64()
		out.TraceID = &s
	}
	if b := t.Block; b != nil {
		out.BlockRef = &BlockID{Workchain: b.Workchain, Shard: ShardHex(b.Shard), Seqno: int32(b.Seqno)}
	}
	if len(t.BOC) == 0 {
		if t.InMsg != nil {
			out.InMsg = RenderMessage(t.InMsg, false)
		}
		for i := range t.OutMsgs {
			out.OutMsgs = append(out.OutMsgs, RenderMessage(&t.OutMsgs[i], false))
		}
		return out, nil
	}
	d, err := decodedOf(t)
	if err != nil {
		return nil, err
	}
	d.apply(out)
	return out, nil
}

// decodeBOC reads the fields toncenter shows from t's raw BOC.
func decodeBOC(t *chain.Transaction) (*decoded, error) {
	raw, full, err := decode(t)
	if err != nil {
		return nil, err
	}
	d := &decoded{
		prevTransHash: base64.StdEncoding.EncodeToString(raw.PrevTransHash[:]),
		prevTransLt:   u64(raw.PrevTransLt),
		feesExtra:     extra(raw.TotalFees.Other),
		description:   describe(&raw.Description),
		stateBefore:   base64.StdEncoding.EncodeToString(raw.StateUpdate.OldHash[:]),
		stateAfter:    base64.StdEncoding.EncodeToString(raw.StateUpdate.NewHash[:]),
	}
	if full.InMsg != nil {
		d.inMsg = RenderMessage(full.InMsg, true)
		info := &raw.Msgs.InMsg.Value.Value.Info
		switch info.SumType {
		case "IntMsgInfo":
			d.inMsg.IhrDisabled = ptr(info.IntMsgInfo.IhrDisabled)
		case "ExtInMsgInfo":
			fee := big.Int(info.ExtInMsgInfo.ImportFee)
			d.inMsg.ImportFee = ptr(fee.String())
		}
	}
	outs := raw.Msgs.OutMsgs.Values()
	for i := range full.OutMsgs {
		m := RenderMessage(&full.OutMsgs[i], true)
		if i < len(outs) && outs[i].Value.Info.SumType == "IntMsgInfo" {
			m.IhrDisabled = ptr(outs[i].Value.Info.IntMsgInfo.IhrDisabled)
		}
		d.outMsgs = append(d.outMsgs, m)
	}
	return d, nil
}

// workchainOf is a raw address's workchain, 0 when it does not parse.
func workchainOf(account string) int32 {
	if id, err := ton.AccountIDFromRaw(account); err == nil {
		return id.Workchain
	}
	return 0
}

// decode reads the raw transaction; its workchain is the stored
// account's (a lone transaction does not carry it).
func decode(t *chain.Transaction) (raw *tlb.Transaction, full *chain.Transaction, err error) {
	wc := workchainOf(t.Account)
	if full, raw, err = chain.DecodeTransactionBOC(t.BOC, &wc); err != nil {
		return nil, nil, fmt.Errorf("stored transaction %s: %w", t.Hash.Base64(), err)
	}
	return raw, full, nil
}

// RenderMessage renders a message in toncenter's shape. full says the
// message was decoded from a raw BOC, so created_at and ihr_fee are known;
// a stored message row alone does not hold ihr_fee (null).
func RenderMessage(m *chain.Message, full bool) *Message {
	out := &Message{Hash: m.Hash.Base64(), ValueExtraCurrencies: map[string]string{}}
	external := m.Source == ""
	if !m.HashNorm.IsZero() {
		out.HashNorm = ptr(m.HashNorm.Base64())
	}
	if !external {
		out.Source = ptr(m.Source)
	}
	if m.Destination != "" {
		out.Destination = ptr(m.Destination)
	}
	internal := m.Source != "" && m.Destination != ""
	if internal {
		out.Value = ptr(u64(m.Value))
		for id, v := range m.ExtraCurrencies {
			out.ValueExtraCurrencies[strconv.FormatUint(uint64(id), 10)] = v
		}
		out.FwdFee = ptr(u64(m.FwdFee))
		out.Bounce, out.Bounced = ptr(m.Bounce), ptr(m.Bounced)
		if full {
			out.IhrFee = ptr(u64(m.IhrFee))
		}
	}
	if !external {
		out.CreatedLt = ptr(u64(m.CreatedLt))
		// A row from trace JSON keeps the header's time among its facts
		// (0 when the JSON had none: unknown, null).
		if full || m.CreatedAt != 0 {
			out.CreatedAt = ptr(strconv.FormatUint(uint64(m.CreatedAt), 10))
		}
	}
	if m.Opcode != nil {
		out.Opcode = ptr(fmt.Sprintf("0x%08x", *m.Opcode))
	}
	if !m.BodyHash.IsZero() {
		out.MessageContent = &MessageContent{Body: ptr(bodyBase64(m.Body)), Hash: ptr(m.BodyHash.Base64())}
	} else {
		out.MessageContent = content(m.Body, true)
	}
	out.InitState = content(m.InitState, false)
	return out
}

// The empty cell's BOC and hash as a message without a body shows them:
// many messages of every page (plain transfers), so made once.
var (
	emptyBody     = base64.StdEncoding.EncodeToString(chain.EmptyCellBOC)
	emptyBodyHash = func() string { h, _ := chain.BodyHash(nil); return h.Base64() }()
)

// bodyBase64 is a body's BOC in base64, the empty cell's when it has none.
func bodyBase64(b []byte) string {
	if len(b) == 0 {
		return emptyBody
	}
	return base64.StdEncoding.EncodeToString(b)
}

// content is a body's or StateInit's hash and BOC; an absent StateInit is
// null, an absent body is the empty cell.
func content(b []byte, body bool) *MessageContent {
	if len(b) == 0 {
		if !body {
			return nil
		}
		return &MessageContent{Body: ptr(emptyBody), Hash: ptr(emptyBodyHash)}
	}
	c := &MessageContent{Body: ptr(bodyBase64(b))}
	if h, ok := chain.RootHash(b); ok {
		c.Hash = ptr(h.Base64())
	}
	return c
}

func describe(d *tlb.TransactionDescr) *TransactionDescr {
	out := &TransactionDescr{}
	switch d.SumType {
	case "TransOrd":
		o := &d.TransOrd
		out.Type = "ord"
		out.CreditFirst, out.Aborted, out.Destroyed = ptr(o.CreditFirst), ptr(o.Aborted), ptr(o.Destroyed)
		if o.StoragePh.Exists {
			out.StoragePh = storage(&o.StoragePh.Value)
		}
		if o.CreditPh.Exists {
			out.CreditPh = credit(&o.CreditPh.Value)
		}
		out.ComputePh = compute(&o.ComputePh)
		if o.Action.Exists {
			out.Action = action(&o.Action.Value.Value)
		}
		if o.Bounce.Exists {
			out.Bounce = bounce(&o.Bounce.Value)
		}
	case "TransStorage":
		out.Type = "storage"
		out.StoragePh = storage(&d.TransStorage.StoragePh)
	case "TransTickTock":
		o := &d.TransTickTock
		out.Type = "tick_tock"
		out.IsTock, out.Aborted, out.Destroyed = ptr(o.IsTock), ptr(o.Aborted), ptr(o.Destroyed)
		out.StoragePh = storage(&o.StoragePh)
		out.ComputePh = compute(&o.ComputePh)
		if o.Action.Exists {
			out.Action = action(&o.Action.Value.Value)
		}
	case "TransSplitPrepare":
		o := d.TransSplitPrepare
		out.Type = "split_prepare"
		out.SplitInfo = split(&o.SplitInfo)
		out.Aborted, out.Destroyed = ptr(o.Aborted), ptr(o.Destroyed)
		if o.StoragePh.Exists {
			out.StoragePh = storage(&o.StoragePh.Value)
		}
		out.ComputePh = compute(&o.ComputePh)
		if o.Action.Exists {
			out.Action = action(&o.Action.Value.Value)
		}
	case "TransSplitInstall":
		o := d.TransSplitInstall
		out.Type = "split_install"
		out.SplitInfo = split(&o.SplitInfo)
		out.Installed = ptr(o.Installed)
	case "TransMergePrepare":
		o := d.TransMergePrepare
		out.Type = "merge_prepare"
		out.SplitInfo = split(&o.SplitInfo)
		out.StoragePh = storage(&o.StoragePh)
		out.Aborted = ptr(o.Aborted)
	case "TransMergeInstall":
		o := d.TransMergeInstall
		out.Type = "merge_install"
		out.SplitInfo = split(&o.SplitInfo)
		out.Aborted, out.Destroyed = ptr(o.Aborted), ptr(o.Destroyed)
		if o.StoragePh.Exists {
			out.StoragePh = storage(&o.StoragePh.Value)
		}
		if o.CreditPh.Exists {
			out.CreditPh = credit(&o.CreditPh.Value)
		}
		out.ComputePh = compute(&o.ComputePh)
		if o.Action.Exists {
			out.Action = action(&o.Action.Value.Value)
		}
	}
	return out
}

// statusChange names tlb's AccStatusChange as toncenter does.
func statusChange(s tlb.AccStatusChange) *string {
	return ptr(strings.TrimPrefix(string(s), "acst_"))
}

func storage(s *tlb.TrStoragePhase) *StoragePhase {
	out := &StoragePhase{StorageFeesCollected: ptr(u64(uint64(s.StorageFeesCollected))), StatusChange: statusChange(s.StatusChange)}
	if s.StorageFeesDue.Exists {
		out.StorageFeesDue = ptr(u64(uint64(s.StorageFeesDue.Value)))
	}
	return out
}

func credit(c *tlb.TrCreditPhase) *CreditPhase {
	out := &CreditPhase{Credit: ptr(u64(uint64(c.Credit.Grams)))}
	if c.DueFeesCollected.Exists {
		out.DueFeesCollected = ptr(u64(uint64(c.DueFeesCollected.Value)))
	}
	if ec := extra(c.Credit.Other); len(ec) > 0 {
		out.CreditExtraCurrencies = ec
	}
	return out
}

func compute(c *tlb.TrComputePhase) *ComputePhase {
	if c.SumType == "TrPhaseComputeSkipped" {
		return &ComputePhase{IsSkipped: ptr(true), Reason: ptr(strings.TrimPrefix(string(c.TrPhaseComputeSkipped.Reason), "cskip_"))}
	}
	vm := &c.TrPhaseComputeVm
	out := &ComputePhase{
		IsSkipped: ptr(false), Success: ptr(vm.Success), MsgStateUsed: ptr(vm.MsgStateUsed),
		AccountActivated: ptr(vm.AccountActivated), GasFees: ptr(u64(uint64(vm.GasFees))),
		GasUsed: ptr(bigText(big.Int(vm.Vm.GasUsed))), GasLimit: ptr(bigText(big.Int(vm.Vm.GasLimit))),
		Mode: ptr(int32(vm.Vm.Mode)), ExitCode: ptr(vm.Vm.ExitCode), VMSteps: ptr(vm.Vm.VmSteps),
		VMInitStateHash:  ptr(base64.StdEncoding.EncodeToString(vm.Vm.VmInitStateHash[:])),
		VMFinalStateHash: ptr(base64.StdEncoding.EncodeToString(vm.Vm.VmFinalStateHash[:])),
	}
	if vm.Vm.GasCredit.Exists {
		out.GasCredit = ptr(bigText(big.Int(vm.Vm.GasCredit.Value)))
	}
	if vm.Vm.ExitArg.Exists {
		out.ExitArg = ptr(vm.Vm.ExitArg.Value)
	}
	return out
}

func action(a *tlb.TrActionPhase) *ActionPhase {
	out := &ActionPhase{
		Success: ptr(a.Success), Valid: ptr(a.Valid), NoFunds: ptr(a.NoFunds), StatusChange: statusChange(a.StatusChange),
		ResultCode: ptr(a.ResultCode), TotActions: ptr(int32(a.TotActions)), SpecActions: ptr(int32(a.SpecActions)),
		SkippedActions: ptr(int32(a.SkippedActions)), MsgsCreated: ptr(int32(a.MsgsCreated)),
		ActionListHash: ptr(base64.StdEncoding.EncodeToString(a.ActionListHash[:])),
		TotMsgSize:     size(&a.TotMsgSize),
	}
	if a.TotalFwdFees.Exists {
		out.TotalFwdFees = ptr(u64(uint64(a.TotalFwdFees.Value)))
	}
	if a.TotalActionFees.Exists {
		out.TotalActionFees = ptr(u64(uint64(a.TotalActionFees.Value)))
	}
	if a.ResultArg.Exists {
		out.ResultArg = ptr(a.ResultArg.Value)
	}
	return out
}

func bounce(b *tlb.TrBouncePhase) *BouncePhase {
	switch b.SumType {
	case "TrPhaseBounceNegfunds":
		return &BouncePhase{Type: ptr("negfunds")}
	case "TrPhaseBounceNofunds":
		o := &b.TrPhaseBounceNofunds
		return &BouncePhase{Type: ptr("nofunds"), MsgSize: size(&o.MsgSize), ReqFwdFees: ptr(u64(uint64(o.ReqFwdFees)))}
	default:
		o := &b.TrPhaseBounceOk
		return &BouncePhase{Type: ptr("ok"), MsgSize: size(&o.MsgSize), MsgFees: ptr(u64(uint64(o.MsgFees))), FwdFees: ptr(u64(uint64(o.FwdFees)))}
	}
}

func split(s *tlb.SplitMergeInfo) *SplitInfo {
	return &SplitInfo{
		CurShardPfxLen: ptr(int32(s.CurSHardPfxLen)), AccSplitDepth: ptr(int32(s.AccSplitDepth)),
		ThisAddr: ptr(hex.EncodeToString(s.ThisAddr[:])), SiblingAddr: ptr(hex.EncodeToString(s.SiblingAddr[:])),
	}
}

func size(s *tlb.StorageUsed) *MsgSize {
	return &MsgSize{Cells: ptr(bigText(big.Int(s.Cells))), Bits: ptr(bigText(big.Int(s.Bits)))}
}

// extra renders an extra-currency collection as toncenter's map of id to
// decimal amount.
func extra(c tlb.ExtraCurrencyCollection) map[string]string {
	out := map[string]string{}
	for _, kv := range c.Dict.Items() {
		v := big.Int(kv.Value)
		out[strconv.FormatUint(uint64(kv.Key), 10)] = v.String()
	}
	return out
}

func bigText(b big.Int) string { return b.String() }

func u64(n uint64) string { return strconv.FormatUint(n, 10) }

func ptr[T any](v T) *T { return &v }

// MessageEnd is the stored transaction a message was read with: the one
// it was in-message (Direction "in") or out-message Seq of, its raw BOC
// when stored, and the transaction at the other end ("" when not stored).
type MessageEnd struct {
	TxHash, Account, Direction string
	Seq                        int
	BOC                        []byte
	OtherTxHash                string
}

// RenderStoredMessage renders a message of /api/v3/messages. When its
// transaction's raw BOC is stored, the message is taken from it (every
// field known); otherwise from the message row (see RenderMessage).
func RenderStoredMessage(m *chain.Message, end MessageEnd) (*Message, error) {
	out := RenderMessage(m, false)
	if len(end.BOC) > 0 {
		t := &chain.Transaction{Hash: m.Hash, Account: end.Account, BOC: end.BOC}
		rt, err := RenderTransaction(t)
		if err != nil {
			return nil, err
		}
		switch {
		case end.Direction == "in" && rt.InMsg != nil:
			out = rt.InMsg
		case end.Direction == "out" && end.Seq < len(rt.OutMsgs):
			out = rt.OutMsgs[end.Seq]
		}
	}
	in, outTx := end.TxHash, end.OtherTxHash
	if end.Direction == "out" {
		in, outTx = outTx, in
	}
	if in != "" {
		out.InMsgTxHash = ptr(in)
	}
	if outTx != "" {
		out.OutMsgTxHash = ptr(outTx)
	}
	return out, nil
}
