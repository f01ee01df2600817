package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// node is a transaction of the trace with its in-message decoded once.
type node struct {
	tx       *chain.Transaction
	parent   *node
	children []*node
	op       uint32
	hasOp    bool
	body     any // the abi body struct of the in-message, nil when unknown
	used     bool
}

func (n *node) in() *chain.Message { return n.tx.InMsg }

// is reports an in-message with one of the given op codes that is not a bounce.
func (n *node) is(ops ...abi.MsgOpCode) bool {
	if n == nil || !n.hasOp || n.in().Bounced {
		return false
	}
	for _, op := range ops {
		if n.op == uint32(op) {
			return true
		}
	}
	return false
}

// ok is the transaction's own outcome: it ran and did not bounce.
func (n *node) ok() bool { return n.tx.Success() && !n.tx.Bounced }

// child finds the first unused child whose in-message has one of the ops.
func (n *node) child(ops ...abi.MsgOpCode) *node {
	for _, c := range n.children {
		if !c.used && c.is(ops...) {
			return c
		}
	}
	return nil
}

// bounceBack finds the bounced reply to n's in-message among its children.
func (n *node) bouncedChild() *node {
	for _, c := range n.children {
		if c.in() != nil && c.in().Bounced {
			return c
		}
	}
	return nil
}

func buildTree(tn *chain.TraceNode, parent *node, all *[]*node) *node {
	n := &node{tx: tn.Tx, parent: parent}
	if m := tn.Tx.InMsg; m != nil && !m.IsExternalIn() {
		n.op, n.hasOp = opcodeOf(m)
		if n.hasOp && len(m.Body) > 0 {
			n.body = decodeBody(m.Body)
		}
	}
	*all = append(*all, n)
	for _, c := range tn.Children {
		n.children = append(n.children, buildTree(c, n, all))
	}
	return n
}

func opcodeOf(m *chain.Message) (uint32, bool) {
	if m.Opcode != nil {
		return *m.Opcode, true
	}
	return 0, false
}

// decodeBody decodes an internal message body by its op code. Bodies are
// untrusted bytes: a decoder panic means "unknown body", never a crash.
func decodeBody(b []byte) (out any) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	cells, err := boc.DeserializeBoc(b)
	if err != nil || len(cells) != 1 {
		return nil
	}
	_, _, v, err := abi.InternalMessageDecoder(cells[0], nil)
	if err != nil {
		return nil
	}
	return v
}

// addr is the raw upper-case form of an internal address, "" otherwise.
func addr(a tlb.MsgAddress) string {
	id, err := ton.AccountIDFromTlb(a)
	if err != nil || id == nil {
		return ""
	}
	return chain.RawAddress(*id)
}

func amount(v tlb.VarUInteger16) BigInt {
	b := big.Int(v)
	return BigInt(b.String())
}
