package actions

import (
	"strings"

	"github.com/tonkeeper/tongo/abi"
)

// The nominator pool (github.com/ton-blockchain/nominator-pool) lives in
// the masterchain and takes its nominators' requests, sent from basechain
// wallets, as text comments: "d" deposits the value, "w" asks for the whole
// stake back, paid at once when the pool holds it, else when the validator
// has the pool process withdrawal requests (op 2).
const nominatorProcessWithdrawals = 2

func init() {
	addMatcher(OrderProtocol+44, "StakeDeposit/nominator", matchNominatorRequest)
	addMatcher(OrderProtocol+45, "StakeWithdrawal/nominator payout", matchNominatorPayout)
}

func masterchain(a string) bool { return strings.HasPrefix(a, "-1:") }
func basechain(a string) bool   { return strings.HasPrefix(a, "0:") }

// nominatorComment is the request a basechain wallet sends a masterchain
// contract as a text comment: "d" or "w", "" when n is no such request.
func nominatorComment(n *node) string {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced || !n.is(abi.TextCommentMsgOpCode) ||
		!masterchain(n.tx.Account) || !basechain(m.Source) {
		return ""
	}
	if text, ok := commentOf(m.Body); ok && (text == "d" || text == "w") {
		return text
	}
	return ""
}

// plainTransfer is a message with no op code (or a comment): coins moved.
func plainTransfer(n *node) bool {
	m := n.in()
	return m != nil && !m.Bounced && (!n.hasOp || n.op == uint32(abi.TextCommentMsgOpCode))
}

// matchNominatorRequest: a "d" (deposit) or "w" (withdrawal) comment to a
// nominator pool. A "w" answered with more coins than it carried, or with
// two transfers (the stake, then the change), was paid at once.
func matchNominatorRequest(c *classifier, n *node) bool {
	req := nominatorComment(n)
	if req == "" {
		return false
	}
	m := n.in()
	holder, pool := Address(m.Source), Address(n.tx.Account)
	d := newDraft(nil, m.Hash, n).withInitiator(n)
	for _, ch := range n.children {
		if ch.in().Bounced {
			d.nodes = append(d.nodes, ch)
		}
	}
	d.ok = n.ok()
	if req == "d" {
		d.value = &StakeDeposit{Provider: providerNominator, StakeHolder: holder, Pool: pool, Amount: nano(m.Value)}
		c.add(d)
		return true
	}
	var transfers []*node
	for _, ch := range n.children {
		if !ch.used && plainTransfer(ch) && ch.tx.Account == m.Source {
			transfers = append(transfers, ch)
		}
	}
	var payout *node
	switch len(transfers) {
	case 1:
		if transfers[0].in().Value > m.Value {
			payout = transfers[0]
		}
	case 2:
		payout = transfers[0]
		if transfers[1].in().CreatedLt < payout.in().CreatedLt {
			payout = transfers[1]
		}
	}
	if len(transfers) <= 2 {
		d.nodes = append(d.nodes, transfers...)
	}
	if payout != nil {
		d.value = &StakeWithdrawal{Provider: providerNominator, StakeHolder: holder, Pool: pool,
			Amount: nano(payout.in().Value)}
	} else {
		d.value = &StakeWithdrawalRequest{Provider: providerNominator, StakeHolder: holder, Pool: pool}
	}
	c.add(d)
	return true
}

// matchNominatorPayout: a nominator pool told by its validator to process
// withdrawal requests (op 2) pays each requester: one withdrawal per
// payout. The request itself stays a contract call, as toncenter has it.
// The withdrawal is the pool's payment: a payout that bounced off a
// nominator's closed wallet does not fail it (toncenter reports it done).
func matchNominatorPayout(c *classifier, t *node) bool {
	p := t.parent
	if p == nil || !plainTransfer(t) || !basechain(t.tx.Account) || !masterchain(p.tx.Account) ||
		!p.is(nominatorProcessWithdrawals) {
		return false
	}
	v := &StakeWithdrawal{Provider: providerNominator, StakeHolder: Address(t.tx.Account),
		Pool: Address(p.tx.Account), Amount: nano(t.in().Value)}
	d := newDraft(v, t.in().Hash, t)
	d.ok = p.ok()
	c.add(d)
	return true
}
