package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// jettonLeg is one jetton move: transfer -> internal_transfer ->
// notification/excesses. Swaps reuse it for their incoming and outgoing legs.
type jettonLeg struct {
	send, receive, notify, excess *node // send: the sender's jetton wallet
	owner, recipient              string
	sourceWallet, destWallet      string
	master                        string
	amount                        string
	ok                            bool
	body                          abi.JettonTransferMsgBody
}

// followTransfer reads the leg that starts where a jetton wallet (n)
// receives a transfer request from its owner.
func (c *classifier) followTransfer(n *node) (*jettonLeg, bool) {
	if !n.is(abi.JettonTransferMsgOpCode) {
		return nil, false
	}
	body, ok := bodyAs[abi.JettonTransferMsgBody](n)
	if !ok {
		return nil, false
	}
	l := &jettonLeg{send: n, body: body, owner: n.in().Source, sourceWallet: n.tx.Account,
		recipient: addr(body.Destination), amount: amount(body.Amount)}
	l.receive = n.child(abi.JettonInternalTransferMsgOpCode)
	if l.receive != nil {
		l.destWallet = l.receive.tx.Account
		l.notify = l.receive.child(abi.JettonNotifyMsgOpCode)
		l.excess = l.receive.child(abi.ExcessMsgOpCode)
	} else if l.notify = n.child(abi.JettonNotifyMsgOpCode); l.notify != nil {
		// A wallet that notifies the recipient itself (STON.fi's pTON: the
		// "jettons" are TON it holds) has no second wallet to accept them.
		l.ok = n.ok()
	}
	// The jettons moved when both wallets accepted the messages; a receiver
	// that failed bounces them back to the sender.
	l.ok = l.ok || n.ok() && l.receive != nil && l.receive.ok()
	l.master = c.masterOf(l.sourceWallet, l.destWallet)
	return l, true
}

// masterOf is the jetton master of any of the wallets, when known.
func (c *classifier) masterOf(wallets ...string) string {
	for _, w := range wallets {
		if k, ok := c.known[w]; ok && k.Jetton != "" {
			return k.Jetton
		}
	}
	return ""
}

func (c *classifier) ownerOf(wallet string) string {
	if k, ok := c.known[wallet]; ok {
		return k.Owner
	}
	return ""
}

func (l *jettonLeg) nodes() []*node {
	return []*node{l.send, l.receive, l.notify, l.excess}
}

func matchJettonTransfer(c *classifier, n *node) bool {
	l, ok := c.followTransfer(n)
	if !ok {
		return false
	}
	d := newDraft(chain.JettonTransfer, n.in().Hash, l.nodes()...).withInitiator(n)
	d.ok = l.ok
	d.set("sender", l.owner)
	d.set("recipient", l.recipient)
	d.set("sender_wallet", l.sourceWallet)
	d.set("recipient_wallet", l.destWallet)
	d.set("jetton_master", l.master)
	d.set("amount", l.amount)
	d.set("query_id", uintString(l.body.QueryId))
	d.set("forward_amount", amount(l.body.ForwardTonAmount))
	d.set("response_destination", addr(l.body.ResponseDestination))
	if text, isComment := payloadComment(l.body.ForwardPayload.Value); isComment {
		d.set("comment", text)
		d.set("encrypted", text == "")
	}
	d.account(l.owner, chain.RoleSender)
	d.account(l.recipient, chain.RoleRecipient)
	d.account(l.sourceWallet, chain.RoleSource)
	d.account(l.destWallet, chain.RoleDest)
	d.account(l.master, chain.RoleMaster)
	c.add(d)
	return true
}

// matchJettonBurn: burn at the owner's wallet -> burn_notification at the master.
func matchJettonBurn(c *classifier, n *node) bool {
	if !n.is(abi.JettonBurnMsgOpCode) {
		return false
	}
	body, ok := bodyAs[abi.JettonBurnMsgBody](n)
	if !ok {
		return false
	}
	notify := n.child(abi.JettonBurnNotificationMsgOpCode)
	var excess *node
	master := c.masterOf(n.tx.Account)
	if notify != nil {
		excess = notify.child(abi.ExcessMsgOpCode)
		master = notify.tx.Account
	}
	d := newDraft(chain.JettonBurn, n.in().Hash, n, notify, excess).withInitiator(n)
	d.ok = n.ok() && notify != nil && notify.ok()
	d.set("owner", n.in().Source)
	d.set("jetton_wallet", n.tx.Account)
	d.set("jetton_master", master)
	d.set("amount", amount(body.Amount))
	d.set("query_id", uintString(body.QueryId))
	d.set("response_destination", addr(body.ResponseDestination))
	d.account(n.in().Source, chain.RoleSender)
	d.account(n.tx.Account, chain.RoleSource)
	d.account(master, chain.RoleMaster)
	c.add(d)
	return true
}

// matchJettonMint: a contract that did not receive a jetton transfer sends
// internal_transfer to a jetton wallet: the contract is the master minting.
// n is the master's transaction.
func matchJettonMint(c *classifier, n *node) bool {
	if n.in() == nil || n.is(abi.JettonTransferMsgOpCode, abi.JettonInternalTransferMsgOpCode) {
		return false
	}
	matched := false
	for _, w := range n.children {
		if w.used || !w.is(abi.JettonInternalTransferMsgOpCode) {
			continue
		}
		qid, amt, ok := internalTransferHead(w)
		if !ok {
			continue
		}
		notify := w.child(abi.JettonNotifyMsgOpCode)
		excess := w.child(abi.ExcessMsgOpCode)
		recipient := c.ownerOf(w.tx.Account)
		if recipient == "" && notify != nil {
			recipient = notify.tx.Account
		}
		if recipient == "" {
			recipient = mintTarget(n)
		}
		d := newDraft(chain.JettonMint, w.in().Hash, w, notify, excess)
		if !matched {
			d.nodes = append(d.nodes, n)
		}
		d.ok = w.ok()
		d.set("recipient", recipient)
		d.set("recipient_wallet", w.tx.Account)
		d.set("jetton_master", n.tx.Account)
		d.set("amount", amt)
		d.set("query_id", uintString(qid))
		d.account(recipient, chain.RoleRecipient)
		d.account(w.tx.Account, chain.RoleDest)
		d.account(n.tx.Account, chain.RoleMaster)
		d.account(n.in().Source, chain.RoleSender)
		c.add(d)
		matched = true
	}
	return matched
}

// mintTarget reads the recipient from a mint request. Minters differ in op
// code but commonly start with query_id:uint64 to_address:MsgAddress.
func mintTarget(master *node) string {
	if b, ok := bodyAs[abi.JettonMintMsgBody](master); ok {
		return addr(b.ToAddress)
	}
	return readQueryIDAddress(master.in().Body)
}

// internalTransferHead reads query_id and amount of an internal_transfer.
// Minters put custom forward payloads there that the full schema rejects,
// so the fixed head is read on its own when needed.
func internalTransferHead(n *node) (uint64, string, bool) {
	if b, ok := bodyAs[abi.JettonInternalTransferMsgBody](n); ok {
		return b.QueryId, amount(b.Amount), true
	}
	var head struct {
		Op      uint32
		QueryID uint64
		Amount  tlb.VarUInteger16
	}
	if !decodePrefix(n.in().Body, &head) {
		return 0, "", false
	}
	return head.QueryID, amount(head.Amount), true
}
