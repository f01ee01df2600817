package preview

import (
	"errors"
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// bouncePrefix starts the body of a bounced message (0xffffffff), followed
// by the first bits of the body that bounced.
const bouncePrefix = 0xffffffff

// jettonHead is the start every TEP-74 wallet message shares:
// op, query_id, amount.
type jettonHead struct {
	op     uint32
	amount *big.Int
	next   *boc.Cell // positioned after the amount
}

// readJettonHead reads op, query_id and amount of a body (after the bounce
// prefix when bounced).
func readJettonHead(body []byte, bounced bool) (h jettonHead, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("malformed body")
		}
	}()
	if len(body) == 0 {
		return h, errors.New("no body")
	}
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return h, errors.New("malformed body")
	}
	c := cells[0]
	if bounced {
		if p, err := c.ReadUint(32); err != nil || p != bouncePrefix {
			return h, errors.New("not a bounce")
		}
	}
	op, err := c.ReadUint(32)
	if err != nil {
		return h, err
	}
	if _, err := c.ReadUint(64); err != nil { // query_id
		return h, err
	}
	var amt tlb.VarUInteger16
	if err := tlb.Unmarshal(c, &amt); err != nil {
		return h, err
	}
	b := big.Int(amt)
	return jettonHead{op: uint32(op), amount: &b, next: c}, nil
}

// readAddress reads the next MsgAddress of a head (a transfer's
// destination), raw, or "".
func (h jettonHead) readAddress() (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	var a tlb.MsgAddress
	if err := tlb.Unmarshal(h.next, &a); err != nil {
		return ""
	}
	id, err := ton.AccountIDFromTlb(a)
	if err != nil || id == nil {
		return ""
	}
	return chain.RawAddress(*id)
}

// wallet is what the trace shows of one jetton wallet.
type wallet struct {
	addr          string
	owner, master string
	change        *big.Int
	moved         bool
}

// jettonChanges reads the jetton moves of a trace from the wallets'
// messages, in the order the trace touched the wallets. A wallet's
// balance moves in a transaction that committed (a failed one changes
// nothing): a transfer or burn request takes jettons out, an
// internal_transfer brings them in, and a bounced internal_transfer or
// burn_notification brings them back.
func jettonChanges(nodes []*chain.TraceNode) []JettonChange {
	parent := map[*chain.TraceNode]*chain.TraceNode{}
	for _, n := range nodes {
		for _, c := range n.Children {
			parent[c] = n
		}
	}
	var order []*wallet
	wallets := map[string]*wallet{}
	get := func(addr string) *wallet {
		w, ok := wallets[addr]
		if !ok {
			w = &wallet{addr: addr, change: new(big.Int)}
			wallets[addr] = w
			order = append(order, w)
		}
		return w
	}
	// recipients: the owner a transfer request named, by the node that
	// received it (the sender's wallet).
	recipients := map[*chain.TraceNode]string{}
	for _, n := range nodes {
		tx := n.Tx
		in := tx.InMsg
		if in == nil || in.IsExternalIn() || tx.Aborted || !jettonOp(in) {
			continue
		}
		h, err := readJettonHead(in.Body, in.Bounced)
		if err != nil {
			continue
		}
		op := abi.MsgOpCode(h.op)
		switch {
		case in.Bounced && (op == abi.JettonInternalTransferMsgOpCode || op == abi.JettonBurnNotificationMsgOpCode):
			w := get(tx.Account)
			w.change.Add(w.change, h.amount)
			w.moved = true
		case in.Bounced:
		case op == abi.JettonTransferMsgOpCode && tx.Success():
			w := get(tx.Account)
			w.change.Sub(w.change, h.amount)
			w.moved = true
			w.owner = in.Source
			recipients[n] = h.readAddress()
		case op == abi.JettonBurnMsgOpCode && tx.Success():
			w := get(tx.Account)
			w.change.Sub(w.change, h.amount)
			w.moved = true
			w.owner = in.Source
			if m := outMessage(tx, abi.JettonBurnNotificationMsgOpCode); m != nil {
				w.master = m.Destination
			}
		case op == abi.JettonInternalTransferMsgOpCode && tx.Success():
			w := get(tx.Account)
			w.change.Add(w.change, h.amount)
			w.moved = true
			if m := outMessage(tx, abi.JettonNotifyMsgOpCode); m != nil {
				w.owner = m.Destination
			}
			if p := parent[n]; p != nil {
				if r, ok := recipients[p]; ok {
					// sent by a wallet on its owner's request: that
					// request named this wallet's owner
					if w.owner == "" {
						w.owner = r
					}
				} else {
					// a contract that was not asked to transfer sends
					// internal_transfer: a master minting (as JettonMint reads it)
					w.master = in.Source
				}
			}
		}
	}
	// A wallet that sent to another shares its jetton: masters spread
	// along internal_transfers (parents come first, so one pass over the
	// trace order reaches every wallet a known master's jettons reached).
	for _, n := range nodes {
		in := n.Tx.InMsg
		if in == nil || in.Bounced || in.Opcode == nil || abi.MsgOpCode(*in.Opcode) != abi.JettonInternalTransferMsgOpCode {
			continue
		}
		w, src := wallets[n.Tx.Account], wallets[in.Source]
		if w == nil || src == nil {
			continue
		}
		if w.master == "" {
			w.master = src.master
		} else if src.master == "" {
			src.master = w.master
		}
	}
	out := []JettonChange{}
	for _, w := range order {
		if !w.moved || w.change.Sign() == 0 {
			continue
		}
		out = append(out, JettonChange{Owner: known(w.owner), JettonWallet: w.addr, JettonMaster: known(w.master),
			Change: actions.BigInt(w.change.String())})
	}
	return out
}

// jettonOp is a cheap first look at a message: its op code is one that
// moves a wallet's jettons, or it bounced (the op is inside).
func jettonOp(m *chain.Message) bool {
	if m.Opcode == nil {
		return false
	}
	switch op := abi.MsgOpCode(*m.Opcode); {
	case m.Bounced:
		return true
	case op == abi.JettonTransferMsgOpCode, op == abi.JettonInternalTransferMsgOpCode, op == abi.JettonBurnMsgOpCode:
		return true
	}
	return false
}

// outMessage is the first message tx sent with op, or nil.
func outMessage(tx *chain.Transaction, op abi.MsgOpCode) *chain.Message {
	for i := range tx.OutMsgs {
		m := &tx.OutMsgs[i]
		if m.Opcode != nil && abi.MsgOpCode(*m.Opcode) == op {
			return m
		}
	}
	return nil
}

// known is a fact the trace showed, nil when it did not.
func known(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
