package actions_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// Synthetic traces for the NFT family's flows that the labelled fixtures
// lack. Each one follows the message layouts and the order of outgoing
// messages of the contract's public source (getgems-io/nft-contracts,
// TelegramMessenger/telemint, ton-blockchain/dns-contract), so the
// classifier sees what a real trace of that flow holds.

// nftAcct is a raw address made of one repeated byte.
func nftAcct(b byte) string { return "0:" + strings.Repeat(fmt.Sprintf("%02X", b), 32) }

// nftMsgAddr is a raw address as a TL-B MsgAddress.
func nftMsgAddr(raw string) tlb.MsgAddress {
	id := ton.MustParseAccountID(raw)
	return id.ToMsgAddress()
}

// nftCell builds a body cell: ops write to it in order.
func nftCell(t testing.TB, parts ...any) *boc.Cell {
	t.Helper()
	c := boc.NewCell()
	for _, p := range parts {
		var err error
		switch v := p.(type) {
		case op32:
			err = c.WriteUint(uint64(v), 32)
		case nftU64:
			err = c.WriteUint(uint64(v), 64)
		case u8:
			err = c.WriteUint(uint64(v), 8)
		case u16:
			err = c.WriteUint(uint64(v), 16)
		case bits17:
			err = c.WriteUint(uint64(v), 17)
		case bitv:
			err = c.WriteBit(bool(v))
		case string: // a raw address
			err = tlb.Marshal(c, nftMsgAddr(v))
		case grams:
			err = tlb.Marshal(c, tlb.VarUInteger16(*bigOf(uint64(v))))
		case text:
			err = c.WriteBytes([]byte(v))
		case []byte:
			err = c.WriteBytes(v)
		case *boc.Cell:
			err = c.AddRef(v)
		case noAddr:
			err = c.WriteUint(0, 2)
		default:
			t.Fatalf("cell: unsupported part %T", p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

type (
	op32   uint32
	nftU64 uint64
	u8     uint8
	u16    uint16
	bitv   bool
	grams  uint64
	text   string
	noAddr struct{}
)

// synthNode is a transaction before the trace is numbered.
type synthNode struct {
	account  string
	in       *chain.Message
	kids     []*synthNode
	failed   bool
	deploy   bool
	bounced  bool
	initData *boc.Cell // the StateInit data of a deploying message
}

func tx(account string, in *chain.Message, kids ...*synthNode) *synthNode {
	return &synthNode{account: account, in: in, kids: kids}
}

func (n *synthNode) fails() *synthNode { n.failed = true; return n }

func (n *synthNode) deploys(data *boc.Cell) *synthNode {
	n.deploy, n.initData = true, data
	return n
}

// ext is an external message to dst.
func ext(dst string) *chain.Message { return &chain.Message{Destination: dst} }

// in is an internal message; body may be nil (no body).
func in(src, dst string, value uint64, body *boc.Cell) *chain.Message {
	m := &chain.Message{Source: src, Destination: dst, Value: value, Bounce: true}
	if body != nil {
		b, err := body.ToBoc()
		if err != nil {
			panic(err)
		}
		m.Body = b
		body.ResetCounters()
		if body.BitSize() >= 32 {
			op, _ := body.ReadUint(32)
			o := uint32(op)
			m.Opcode = &o
		}
		body.ResetCounters()
	}
	return m
}

// nftComment is a text comment body.
func nftComment(t testing.TB, s string) *boc.Cell { return nftCell(t, op32(0), text(s)) }

// build numbers the transactions in pre-order and makes the trace.
func build(t testing.TB, root *synthNode) *chain.Trace {
	t.Helper()
	var lt uint64
	var walk func(n *synthNode) *chain.TraceNode
	walk = func(n *synthNode) *chain.TraceNode {
		lt++
		tx := &chain.Transaction{Account: n.account, Lt: 1_000_000 + lt, Utime: 1_700_000_000,
			OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive,
			ComputeSuccess: !n.failed, ActionSuccess: !n.failed, Aborted: n.failed, InMsg: n.in}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], lt)
		tx.Hash = sha256.Sum256(append([]byte("tx"), b[:]...))
		n.in.Hash = sha256.Sum256(append([]byte("msg"), b[:]...))
		n.in.CreatedLt = tx.Lt - 1
		if n.deploy {
			tx.OrigStatus = chain.AccountNonexist
			si := tlb.StateInit{}
			code := boc.NewCell()
			_ = code.WriteUint(0xC0DE, 16)
			si.Code.Exists, si.Code.Value.Value = true, *code
			if n.initData != nil {
				si.Data.Exists, si.Data.Value.Value = true, *n.initData
			}
			c := boc.NewCell()
			if err := tlb.Marshal(c, si); err != nil {
				t.Fatal(err)
			}
			bb, err := c.ToBoc()
			if err != nil {
				t.Fatal(err)
			}
			n.in.InitState = bb
		}
		tn := &chain.TraceNode{Tx: tx}
		for _, k := range n.kids {
			ktn := walk(k)
			tx.OutMsgs = append(tx.OutMsgs, *ktn.Tx.InMsg)
			tn.Children = append(tn.Children, ktn)
		}
		return tn
	}
	rootNode := walk(root)
	tr := &chain.Trace{Root: rootNode, StartLt: rootNode.Tx.Lt, EndLt: 1_000_000 + lt, Complete: true}
	tr.ID = rootNode.Tx.Hash
	return tr
}

// classified is a synthetic trace's actions with their values decoded.
type nftSynthAction struct {
	typ, status string
	value       map[string]any
	txs         int
}

func nftClassifySynth(t testing.TB, root *synthNode, known chain.KnownContracts) []nftSynthAction {
	t.Helper()
	var out []nftSynthAction
	for _, a := range actions.Classify(build(t, root), known) {
		var v map[string]any
		if err := json.Unmarshal(a.Value, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, nftSynthAction{typ: a.Type, status: a.Status, value: v, txs: len(a.Transactions)})
	}
	return out
}

// nftOnly returns the single action of a type, failing otherwise.
func nftOnly(t testing.TB, got []nftSynthAction, typ string) nftSynthAction {
	t.Helper()
	var found []nftSynthAction
	for _, a := range got {
		if a.typ == typ {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s, got %d in %s", typ, len(found), kinds(got))
	}
	return found[0]
}

func kinds(got []nftSynthAction) string {
	var s []string
	for _, a := range got {
		s = append(s, a.typ+":"+a.status)
	}
	return strings.Join(s, " ")
}

// wantFields checks value fields (JSON form: strings, bools, numbers).
func wantFields(t testing.TB, a nftSynthAction, want map[string]any) {
	t.Helper()
	for k, w := range want {
		g, ok := a.value[k]
		if w == nil {
			if ok {
				t.Errorf("%s.%s = %v, want absent", a.typ, k, g)
			}
			continue
		}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !ok || string(gj) != string(wj) {
			t.Errorf("%s.%s = %v, want %v", a.typ, k, g, w)
		}
	}
}

// nftTransferBody is a TEP-62 transfer with an inline forward payload.
func nftTransferBody(t testing.TB, queryID uint64, newOwner, response string, fwd uint64, payload ...any) *boc.Cell {
	parts := []any{op32(0x5fcc3d14), nftU64(queryID), newOwner}
	if response == "" {
		parts = append(parts, noAddr{})
	} else {
		parts = append(parts, response)
	}
	parts = append(parts, bitv(false), grams(fwd), bitv(false))
	return nftCell(t, append(parts, payload...)...)
}

// assignedBody is ownership_assigned with an inline payload.
func assignedBody(t testing.TB, queryID uint64, prevOwner string, payload ...any) *boc.Cell {
	parts := []any{op32(0x05138d91), nftU64(queryID)}
	if prevOwner == "" {
		parts = append(parts, noAddr{})
	} else {
		parts = append(parts, prevOwner)
	}
	parts = append(parts, bitv(false))
	return nftCell(t, append(parts, payload...)...)
}

func bigOf(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// nftU256 is a 256-bit unsigned integer as 32 big-endian bytes.
func nftU256(v uint64) []byte {
	b := make([]byte, 32)
	binary.BigEndian.PutUint64(b[24:], v)
	return b
}
