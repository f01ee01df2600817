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
	body     any  // the abi body struct of the in-message, nil when unknown (decodedBody)
	bodyRead bool // body was decoded
	used     bool
	// cell is the in-message body, deserialized on first use (decode).
	cell     *boc.Cell
	cellRead bool
	// init is the in-message's StateInit, read on first use (stateInit).
	init             stateInit
	initOK, initRead bool
}

// decode decodes the start of n's in-message body into v (false when it
// does not fit). Matchers ask many times of the same node, so the body is
// deserialized once; each read starts from the body's beginning.
func (n *node) decode(v any) bool {
	return unmarshalCell(n.bodyCell(), v)
}

// decodedBody is the abi body struct of the in-message (nil when abi does
// not know its op code), decoded on first use: most nodes are never asked.
func (n *node) decodedBody() any {
	if n == nil {
		return nil
	}
	if !n.bodyRead {
		n.bodyRead = true
		if n.hasOp && n.in() != nil && !n.in().IsExternalIn() {
			n.body = decodeBody(n.bodyCell())
		}
	}
	return n.body
}

// bodyCell is the in-message body (nil when there is none or it is not one
// cell), deserialized once. Whoever reads it resets it first (unmarshalCell
// does).
func (n *node) bodyCell() *boc.Cell {
	if !n.cellRead {
		n.cellRead = true
		if m := n.in(); m != nil && len(m.Body) > 0 {
			n.cell = readBody(m.Body)
		}
	}
	return n.cell
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
func decodeBody(c *boc.Cell) (out any) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	if c == nil {
		return nil
	}
	resetCell(c)
	_, _, v, err := abi.InternalMessageDecoder(c, nil)
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
