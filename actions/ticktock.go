package actions

import "github.com/tonql/tonql/chain"

// TickTock: a special (masterchain system) account ran on its own at the
// start or end of a block, with no message, and what it sent started the
// trace.
type TickTock struct {
	Account Address `json:"account,omitempty" role:"contract" tc:"account" doc:"the special account that ran"`
	Tock    *bool   `json:"tock,omitempty" doc:"true for a tock (end of block), false for a tick (start of block); absent when the transaction's raw form is not at hand"`
}

func init() {
	declare(Type{Value: TickTock{}, Title: "Tick-tock", Describe: describeAs(func(v *TickTock, w *Words) string {
		if v.Tock != nil && *v.Tock {
			return "Ran the tock of " + w.Account(v.Account)
		}
		return "Ran the tick of " + w.Account(v.Account)
	}),
		Toncenter: "tick_tock", Protocols: "masterchain special accounts (elector, config, ...)",
		Doc:    "The tick-tock transaction at the root of a trace: a special account ran with no in-message and sent messages. A tick-tock that sent nothing is no action, as in toncenter.",
		Failed: "the tick-tock transaction aborted"})
	addMatcher(OrderFallback+60, "TickTock", matchTickTock)
}

// matchTickTock claims a trace root that consumed no message, when the
// trace goes on from it (toncenter reports nothing for a lone tick-tock).
func matchTickTock(c *classifier, n *node) bool {
	if n.parent != nil || len(n.children) == 0 {
		return false
	}
	tock, ok := tickTock(n.tx)
	if !ok {
		return false
	}
	d := newDraft(&TickTock{Account: Address(n.tx.Account), Tock: tock}, n.tx.Hash, n)
	d.ok = !n.tx.Aborted
	c.add(d)
	return true
}

// tickTock reports a tick-tock transaction and, when its raw form says,
// whether it was a tock. A transaction with no in-message is one: the only
// others (split and merge) never start traces.
func tickTock(tx *chain.Transaction) (tock *bool, ok bool) {
	if tx.InMsg != nil {
		return nil, false
	}
	if len(tx.BOC) > 0 {
		if d, decoded := txDescr(tx); decoded {
			if d.SumType != "TransTickTock" {
				return nil, false
			}
			return flag(d.TransTickTock.IsTock), true
		}
	}
	return nil, true
}
