package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// Wallet v4 subscription plugins (ton-blockchain/wallet-contract,
// func/simple-subscription-plugin.fc and wallet-v4-code.fc). A payment: the
// plugin asks its wallet for funds (request_funds 0x706c7567, "plug"), the
// wallet pays it (0xf06c7567: the op | 0x80000000), and the plugin forwards
// the payment to the beneficiary (0x73756273, "subs"). The first payment
// comes with the plugin's deployment: the wallet sends 0xf06c7567 itself.
// Ending one: the wallet, the beneficiary or the plugin itself (after
// failed payments) sends destruct (0x64737472, "dstr"); the plugin sends
// its balance to the beneficiary with that op and self-destructs, telling
// the wallet when it did not come from it.

// Subscribe: a subscription plugin took a payment from its wallet and paid
// the beneficiary.
type Subscribe struct {
	Subscriber   Address `json:"subscriber,omitempty" role:"sender" tc:"subscriber" doc:"the subscribing wallet"`
	Subscription Address `json:"subscription,omitempty" role:"contract" tc:"subscription" doc:"the subscription plugin"`
	Beneficiary  Address `json:"beneficiary,omitempty" role:"recipient" tc:"beneficiary" doc:"who the plugin paid, when it did"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons of the payment: what the plugin requested, else what the wallet sent it"`
	QueryID      BigInt  `json:"query_id,omitempty" doc:"query id of the payment request or of the wallet's payment"`
}

// Unsubscribe: a subscription plugin was destroyed.
type Unsubscribe struct {
	Subscriber   Address `json:"subscriber,omitempty" role:"sender" tc:"subscriber" doc:"the subscribed wallet"`
	Subscription Address `json:"subscription,omitempty" role:"contract" tc:"subscription" doc:"the subscription plugin"`
	Beneficiary  Address `json:"beneficiary,omitempty" role:"recipient" tc:"beneficiary" doc:"who received the plugin's remaining balance"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons the plugin sent the beneficiary as it ended"`
	QueryID      BigInt  `json:"query_id,omitempty" doc:"query id of the destruct request, when it has one"`
	InitiatedBy  Address `json:"initiated_by,omitempty" doc:"who ended it when not the wallet: the beneficiary, or the plugin itself after failed payments"`
}

func init() {
	declare(
		Type{Value: Subscribe{}, Title: "Subscription payment", Describe: describeAs(func(v *Subscribe, w *Words) string {
			return "Paid " + w.TON(v.Amount) + " for a subscription to " + w.Account(v.Beneficiary)
		}),
			Toncenter: "subscribe", Protocols: "wallet v4 subscription plugins",
			Doc:     "A subscription payment: the wallet pays its plugin (0xf06c7567), on deployment or on the plugin's request_funds (0x706c7567), and the plugin pays the beneficiary (0x73756273).",
			Failed:  "the wallet refused to pay (request_funds failed or got no payment), the plugin failed, or it paid no beneficiary (too early, or too little)",
			Differs: "toncenter reports a payment only when the plugin paid the beneficiary; a refused or unforwarded one is a failed Subscribe here, a call_contract there"},
		Type{Value: Unsubscribe{}, Title: "Unsubscribed", Describe: describeAs(func(v *Unsubscribe, w *Words) string {
			return "Cancelled the subscription " + w.Account(v.Subscription) + " to " + w.Account(v.Beneficiary)
		}),
			Toncenter: "unsubscribe", Protocols: "wallet v4 subscription plugins",
			Doc:     "destruct (0x64737472) to the plugin, which sends its balance to the beneficiary and self-destructs; or the plugin ending itself after failed payments.",
			Failed:  "the plugin failed to process the destruct request",
			Differs: "when the beneficiary or the plugin ends the subscription, subscriber is the wallet (toncenter names the destruct's sender subscriber and its first recipient beneficiary, and, for a plugin ending itself, reports one action per destruct message it sends); toncenter never reports an unsubscribe failed, here one whose plugin aborted (a plugin already gone) is"},
	)
	addMatcher(OrderProtocol+70, "Subscribe", matchSubscribe)
	addMatcher(OrderProtocol+71, "Unsubscribe", matchUnsubscribe)
}

// matchSubscribe starts at the wallet receiving request_funds from its
// plugin, or, for the first payment, at the plugin receiving the wallet's
// payment.
func matchSubscribe(c *classifier, n *node) bool {
	v := &Subscribe{}
	var request, pay *node
	switch {
	case n.is(abi.PaymentRequestMsgOpCode):
		request = n
		var body struct {
			Op      uint32
			QueryID uint64
			Amount  tlb.Grams
		}
		if !n.decode(&body) {
			return false
		}
		v.Subscriber, v.Subscription = Address(n.tx.Account), Address(n.in().Source)
		v.Amount, v.QueryID = nano(uint64(body.Amount)), nano(body.QueryID)
		pay = n.child(abi.PaymentConfirmedMsgOpCode)
	case n.is(abi.PaymentConfirmedMsgOpCode):
		pay = n
		v.Subscriber, v.Subscription = Address(n.in().Source), Address(n.tx.Account)
		v.Amount = nano(n.in().Value)
	default:
		return false
	}
	var forward *node
	if pay != nil {
		var body struct {
			Op      uint32
			QueryID uint64
		}
		if v.QueryID == "" && pay.decode(&body) {
			v.QueryID = nano(body.QueryID)
		}
		if forward = pay.child(abi.SubscriptionPaymentMsgOpCode); forward != nil {
			v.Beneficiary = Address(forward.tx.Account)
		}
	}
	d := newDraft(v, n.in().Hash, n, pay, forward, n.bouncedChild()).withInitiator(n)
	d.ok = (request == nil || !request.tx.Aborted) && pay != nil && !pay.tx.Aborted && forward != nil
	c.add(d)
	return true
}

// matchUnsubscribe starts at the plugin receiving destruct, or at a plugin
// that ended itself on an external message (too many failed payments). The
// plugin's destruct messages tell who is who: the one with a bare op code
// carries its balance to the beneficiary, the one with a query id tells the
// wallet that the plugin is gone.
func matchUnsubscribe(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.Bounced {
		return false
	}
	var payout, notice *chain.Message
	for i := range n.tx.OutMsgs {
		o := &n.tx.OutMsgs[i]
		if o.Opcode == nil || *o.Opcode != uint32(abi.WalletPluginDestructMsgOpCode) || o.Destination == "" {
			continue
		}
		if bits, ok := bodyBits(o.Body); ok && bits == 32 && payout == nil {
			payout = o
		} else if ok && bits > 32 && notice == nil {
			notice = o
		}
	}
	v := &Unsubscribe{Subscription: Address(n.tx.Account)}
	switch {
	case n.is(abi.WalletPluginDestructMsgOpCode):
		var body struct {
			Op      uint32
			QueryID uint64
		}
		if decodePrefix(m.Body, &body) {
			v.QueryID = nano(body.QueryID)
		}
		v.Subscriber = Address(m.Source)
		if notice != nil && notice.Destination != m.Source {
			// Not from the wallet (the beneficiary): the plugin told the
			// wallet it is gone.
			v.Subscriber, v.InitiatedBy = Address(notice.Destination), Address(m.Source)
		}
	case m.IsExternalIn() && payout != nil && notice != nil && (n.tx.Destroyed || n.tx.EndStatus == chain.AccountNonexist):
		v.Subscriber, v.InitiatedBy = Address(notice.Destination), Address(n.tx.Account)
	default:
		return false
	}
	nodes := []*node{n, n.bouncedChild()}
	if payout != nil {
		v.Beneficiary, v.Amount = Address(payout.Destination), nano(payout.Value)
	}
	for _, ch := range n.children {
		h := ch.in().Hash
		if !ch.used && (payout != nil && h == payout.Hash || notice != nil && h == notice.Hash) {
			nodes = append(nodes, ch, ch.child(abi.WalletPluginDestructResponseMsgOpCode))
		}
	}
	key := n.tx.Hash
	if !m.IsExternalIn() {
		key = m.Hash
	}
	d := newDraft(v, key, nodes...).withInitiator(n)
	d.ok = !n.tx.Aborted
	c.add(d)
	return true
}

// bodyBits is the bit length of a message body's root cell.
func bodyBits(body []byte) (int, bool) {
	if len(body) == 0 {
		return 0, true
	}
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return 0, false
	}
	return cells[0].BitSize(), true
}
