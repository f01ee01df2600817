package actions

import "github.com/tonql/tonql/chain"

// Unknown: a trace that no other type explains, as one action over all its
// transactions.
type Unknown struct {
	Account Address `json:"account,omitempty" role:"contract" doc:"the account whose transaction started the trace"`
}

func init() {
	declare(Type{Value: Unknown{}, Title: "Unknown", Describe: describeAs(func(v *Unknown, w *Words) string {
		return "Ran a trace at " + w.Account(v.Account) + " that no action type explains"
	}),
		Toncenter: "unknown", Protocols: "any",
		Doc: "A trace that gave no other action (typically an external message to a contract that sent no internal message, " +
			"or a wallet request that cannot be read): one action over the whole trace. A lone tick-tock gives no action at all.",
		Failed: "any transaction of the trace aborted"})
	addMatcher(OrderFallback+99, "Unknown", matchUnknown)
}

// matchUnknown runs last, on the root of a complete trace started by an
// external message: when no matcher explained anything and no account was
// deployed (that would be a ContractDeploy), the whole trace is one
// Unknown. A trace still missing transactions waits for them. It is never
// a step of another action.
func matchUnknown(c *classifier, n *node) bool {
	if n.parent != nil || len(c.drafts) > 0 || !c.trace.Complete || c.stepsFor != nil {
		return false
	}
	if m := n.tx.InMsg; m == nil || !m.IsExternalIn() {
		// A lone tick-tock (toncenter reports nothing), or a branch whose
		// start is not at hand.
		return false
	}
	failed := false
	for _, x := range c.nodes {
		if isDeploy(x.tx) {
			return false
		}
		failed = failed || x.tx.Aborted
	}
	d := newDraft(&Unknown{Account: Address(n.tx.Account)}, c.trace.ID, c.nodes...)
	d.ok = !failed
	c.add(d)
	return true
}

// isDeploy reports a transaction that made its account active: matchDeploys
// adds a ContractDeploy for it.
func isDeploy(tx *chain.Transaction) bool {
	return tx.EndStatus == chain.AccountActive && (tx.OrigStatus == chain.AccountUninit || tx.OrigStatus == chain.AccountNonexist)
}
