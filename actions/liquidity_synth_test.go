package actions_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// Synthetic traces for the liquidity flows the fixtures lack (STON.fi v2
// deposits and withdrawals, DeDust and Coffee withdrawals, a DeDust deposit
// that only funds one asset, failures). Each message body is built with
// tongo's TL-B encoder from the layout the protocol's contracts document
// (STON.fi dex-core-v2 contracts/common/op.fc, DeDust's and Coffee's TL-B
// as tongo's abi and toncenter's indexer decode them), so the classifier
// reads them exactly as it reads mainnet bodies.

// liqTx is one transaction of a synthetic trace: the account, the body of
// the message it consumed (op code first), the value, whether it failed,
// and the transactions its out-messages caused.
type liqTx struct {
	acct  string
	body  []byte
	value uint64
	fail  bool
	kids  []*liqTx
}

// liqAddr is a raw address made from a name.
func liqAddr(name string) string {
	h := sha256.Sum256([]byte(name))
	return "0:" + strings.ToUpper(hex.EncodeToString(h[:]))
}

func liqMsgAddr(raw string) tlb.MsgAddress {
	id := ton.MustParseAccountID(raw)
	return id.ToMsgAddress()
}

// liqBody is op (32 bits) followed by v encoded by tongo's TL-B encoder.
func liqBody(t testing.TB, op uint32, v any) []byte {
	t.Helper()
	c := boc.NewCell()
	if err := c.WriteUint(uint64(op), 32); err != nil {
		t.Fatal(err)
	}
	if v != nil {
		if err := tlb.Marshal(c, v); err != nil {
			t.Fatalf("op %08x: %v", op, err)
		}
	}
	b, err := c.ToBoc()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (x *liqTx) failed() *liqTx { x.fail = true; return x }

func liqT(acct string, value uint64, body []byte, kids ...*liqTx) *liqTx {
	return &liqTx{acct: acct, body: body, value: value, kids: kids}
}

// liqTrace builds the trace of a wallet's external message whose
// out-messages are kids.
func liqTrace(wallet string, kids ...*liqTx) *chain.Trace {
	var seq uint64
	hash := func() chain.Hash {
		seq++
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], seq)
		return chain.Hash(sha256.Sum256(b[:]))
	}
	lt := uint64(1_000_000)
	var build func(x *liqTx, in *chain.Message) *chain.TraceNode
	build = func(x *liqTx, in *chain.Message) *chain.TraceNode {
		lt += 10
		tx := &chain.Transaction{Hash: hash(), Account: x.acct, Lt: lt, Utime: uint32(lt / 1000),
			OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive,
			ComputeSuccess: !x.fail, ActionSuccess: !x.fail, InMsg: in, McSeqno: 1}
		if x.fail {
			tx.ComputeExitCode = 100
		}
		n := &chain.TraceNode{Tx: tx}
		for _, k := range x.kids {
			m := chain.Message{Hash: hash(), Source: x.acct, Destination: k.acct, Value: k.value, Bounce: true, Body: k.body}
			if len(k.body) > 0 {
				if cells, err := boc.DeserializeBoc(k.body); err == nil && len(cells) == 1 {
					if op, err := cells[0].PickUint(32); err == nil {
						o := uint32(op)
						m.Opcode = &o
					}
				}
			}
			tx.OutMsgs = append(tx.OutMsgs, m)
			msg := m
			n.Children = append(n.Children, build(k, &msg))
		}
		return n
	}
	root := build(&liqTx{acct: wallet, kids: kids}, &chain.Message{Hash: hash(), Destination: wallet})
	tr := &chain.Trace{ID: root.Tx.Hash, Root: root, Complete: true, StartLt: root.Tx.Lt, EndLt: lt}
	root.Walk(func(n *chain.TraceNode) bool { tr.Transactions++; return true })
	return tr
}

// liqClassify classifies a synthetic trace and decodes each value.
func liqClassify(t *testing.T, tr *chain.Trace, known chain.KnownContracts) []liqAction {
	t.Helper()
	var out []liqAction
	for _, a := range actions.Classify(tr, known) {
		var v map[string]any
		if err := json.Unmarshal(a.Value, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, liqAction{typ: a.Type, status: a.Status, v: v, txs: len(a.Transactions)})
	}
	return out
}

type liqAction struct {
	typ, status string
	v           map[string]any
	txs         int
}

// liqOnly returns the single action of the type, failing when the trace
// decodes to anything else too.
func liqOnly(t *testing.T, got []liqAction, typ string) liqAction {
	t.Helper()
	var found []liqAction
	for _, a := range got {
		if a.typ != typ {
			t.Errorf("unexpected %s %s %v", a.typ, a.status, a.v)
			continue
		}
		found = append(found, a)
	}
	if len(found) != 1 {
		t.Fatalf("%d %s actions, want 1", len(found), typ)
	}
	return found[0]
}

// liqWant checks value fields; "" means the field must be absent.
func liqWant(t *testing.T, a liqAction, want map[string]string) {
	t.Helper()
	for k, w := range want {
		got, _ := a.v[k].(string)
		if b, ok := a.v[k].(bool); ok {
			got = map[bool]string{true: "true", false: "false"}[b]
		}
		if got != w {
			t.Errorf("%s: %s = %q, want %q", a.typ, k, got, w)
		}
	}
}

// Body builders.

func liqJettonTransfer(t testing.TB, amt uint64, to, response string) []byte {
	return liqBody(t, uint32(abi.JettonTransferMsgOpCode), abi.JettonTransferMsgBody{
		Amount: tlb.VarUInteger16(*bigU(amt)), Destination: liqMsgAddr(to), ResponseDestination: liqMsgAddr(response)})
}

func liqInternalTransfer(t testing.TB, amt uint64, from string) []byte {
	return liqBody(t, uint32(abi.JettonInternalTransferMsgOpCode), abi.JettonInternalTransferMsgBody{
		Amount: tlb.VarUInteger16(*bigU(amt)), From: liqMsgAddr(from), ResponseAddress: liqMsgAddr(from)})
}

func liqNotify(t testing.TB, amt uint64, sender string, payload *abi.JettonPayload) []byte {
	b := abi.JettonNotifyMsgBody{Amount: tlb.VarUInteger16(*bigU(amt)), Sender: liqMsgAddr(sender)}
	if payload != nil {
		b.ForwardPayload = tlb.EitherRef[abi.JettonPayload]{IsRight: true, Value: *payload}
	}
	return liqBody(t, uint32(abi.JettonNotifyMsgOpCode), b)
}

func liqExcess(t testing.TB) []byte {
	return liqBody(t, uint32(abi.ExcessMsgOpCode), abi.ExcessMsgBody{})
}

func liqPtonTransfer(t testing.TB, amt uint64, refund string) []byte {
	return liqBody(t, uint32(abi.PtonTonTransferMsgOpCode), abi.PtonTonTransferMsgBody{
		TonAmount: tlb.Grams(amt), RefundAddress: liqMsgAddr(refund)})
}

func liqBurn(t testing.TB, amt uint64, response string) []byte {
	return liqBody(t, uint32(abi.JettonBurnMsgOpCode), abi.JettonBurnMsgBody{
		Amount: tlb.VarUInteger16(*bigU(amt)), ResponseDestination: liqMsgAddr(response)})
}

func liqBurnNotification(t testing.TB, amt uint64, sender string) []byte {
	return liqBody(t, uint32(abi.JettonBurnNotificationMsgOpCode), abi.JettonBurnNotificationMsgBody{
		Amount: tlb.VarUInteger16(*bigU(amt)), Sender: liqMsgAddr(sender), ResponseDestination: liqMsgAddr(sender)})
}

func bigU(u uint64) *big.Int { return new(big.Int).SetUint64(u) }
