package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
)

// Coffee and Tonco deposits are reported one action per asset the user
// sent (toncenter's shape): each branch of the trace, from the user's
// request down, is its own DexDepositLiquidity, and only the branch that
// completed the deposit carries the pool's answer (LP jettons, a position).

// depositBranch starts the action of the branch that leads to anchor a (a
// DEX contract taking the user's asset): the user's request above a and
// everything below it, refunds and excesses included.
func depositBranch(v *DexDepositLiquidity, a *node, user string) (*draft, *node) {
	head := requestOf(a, user)
	d := newDraft(v, head.in().Hash)
	d.claimSubtree(head)
	d.withInitiator(head)
	return d, head
}

// below finds the first unclaimed node of n's subtree (n included) whose
// in-message has one of the ops: the step of a branch that reached the pool.
func below(n *node, ops ...abi.MsgOpCode) *node {
	if n.used {
		return nil
	}
	if n.is(ops...) {
		return n
	}
	for _, ch := range n.children {
		if f := below(ch, ops...); f != nil {
			return f
		}
	}
	return nil
}

// pathOK reports whether every transaction from head down to n ran without
// bouncing: the asset reached the DEX contract that accounts for it.
func pathOK(head, n *node) bool {
	for a := n; a != nil; a = a.parent {
		if !a.ok() {
			return false
		}
		if a == head {
			return true
		}
	}
	return false
}

// positive reports a non-zero coin amount.
func positive(v big.Int) bool { return v.Sign() > 0 }
