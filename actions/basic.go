package actions

import (
	"fmt"
	"strconv"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// matchTonTransfer: a message without op code, or with a (possibly
// encrypted) comment. Bounced replies and excesses are change returned to
// the caller of some other step, not actions of their own.
func matchTonTransfer(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced {
		return false
	}
	if n.hasOp && n.op != uint32(abi.TextCommentMsgOpCode) && n.op != uint32(abi.EncryptedTextCommentMsgOpCode) {
		return false
	}
	d := newDraft(chain.TonTransfer, m.Hash, n).withInitiator(n)
	d.ok = n.ok()
	tonTransferValue(d, m.Source, m.Destination, m.Value, m.Body, n.hasOp, n.op)
	c.add(d)
	return true
}

func tonTransferValue(d *draft, from, to string, value uint64, body []byte, hasOp bool, op uint32) {
	d.set("sender", from)
	d.set("recipient", to)
	d.set("amount", uintString(value))
	d.set("encrypted", hasOp && op == uint32(abi.EncryptedTextCommentMsgOpCode))
	if hasOp && op == uint32(abi.TextCommentMsgOpCode) {
		if text, ok := commentOf(body); ok {
			d.set("comment", text)
		}
	}
	d.account(from, chain.RoleSender)
	d.account(to, chain.RoleRecipient)
}

func commentOf(body []byte) (string, bool) {
	var v struct {
		Op   uint32
		Text tlb.Text
	}
	if !decodePrefix(body, &v) {
		return "", false
	}
	return string(v.Text), true
}

// matchContractExec: any other call that no pattern explained.
func matchContractExec(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced || !n.hasOp || n.op == uint32(abi.ExcessMsgOpCode) {
		return false
	}
	d := newDraft(chain.SmartContractExec, m.Hash, n).withInitiator(n)
	d.ok = n.ok()
	d.set("sender", m.Source)
	d.set("contract", m.Destination)
	d.set("opcode", fmt.Sprintf("0x%08x", n.op))
	d.set("amount", uintString(m.Value))
	d.account(m.Source, chain.RoleSender)
	d.account(m.Destination, chain.RoleContract)
	c.add(d)
	return true
}

// matchDeploys adds a ContractDeploy for every account the trace brought
// to life, beside whatever action its message was part of.
func matchDeploys(c *classifier) {
	for _, n := range c.nodes {
		tx := n.tx
		if tx.EndStatus != chain.AccountActive || (tx.OrigStatus != chain.AccountUninit && tx.OrigStatus != chain.AccountNonexist) {
			continue
		}
		key := tx.Hash
		if tx.InMsg != nil {
			key = tx.InMsg.Hash
		}
		d := newDraft(chain.ContractDeploy, key, n)
		d.set("address", tx.Account)
		if tx.InMsg != nil {
			d.set("deployer", tx.InMsg.Source)
			d.account(tx.InMsg.Source, chain.RoleSender)
		}
		d.account(tx.Account, chain.RoleContract)
		c.drafts = append(c.drafts, d)
	}
}

func uintString(v uint64) string { return strconv.FormatUint(v, 10) }

// readQueryIDAddress reads op:uint32 query_id:uint64 addr:MsgAddress from
// the start of a body, the common prefix of many requests.
func readQueryIDAddress(body []byte) string {
	var v struct {
		Op      uint32
		QueryID uint64
		Addr    tlb.MsgAddress
	}
	if !decodePrefix(body, &v) {
		return ""
	}
	return addr(v.Addr)
}

// decodePrefix decodes the start of a body into v, ignoring what follows.
func decodePrefix(body []byte, v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return false
	}
	return tlb.Unmarshal(cells[0], v) == nil
}
