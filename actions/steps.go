package actions

import (
	"reflect"
	"slices"
)

// Steps. toncenter's indexer decodes a newer action type (a purchase, a
// staking deposit, a bridge send) from the actions of its first version
// (transfers, mints, calls) and keeps those too, as the newer action's
// children, so that a client pinned to an older version of its API
// (supported_action_types) shows the steps it knows instead of a type it
// cannot render. Every other client sees the newer action alone. Here the
// steps are found by classifying the parent's own transactions again with
// every matcher except the parent's own type: whatever explains them
// (JettonTransfer, NftItemTransfer, TonTransfer, SmartContractExec, a
// nested newer action with steps of its own) is a step.

// firstVersion is toncenter's first version of action types (its "v1"
// shortcut, and the types its serializer gives no children), by
// toncenter's names. These never have steps.
var firstVersion = []string{"call_contract", "contract_deploy", "ton_transfer", "stake_deposit", "stake_withdrawal",
	"stake_withdrawal_request", "dex_deposit_liquidity", "jetton_transfer", "nft_transfer", "nft_mint",
	"jetton_burn", "jetton_mint", "jetton_swap", "change_dns", "delete_dns", "renew_dns", "subscribe",
	"dex_withdraw_liquidity", "unsubscribe", "election_deposit", "election_recover", "auction_bid", "tick_tock"}

// FirstVersion lists toncenter's first version of action types, by
// toncenter's names (the supported_action_types shortcut "v1").
func FirstVersion() []string { return slices.Clone(firstVersion) }

// HasSteps reports whether actions of the named type list their steps as
// nested actions: every type but the first version's and Unknown (the
// whole trace, which no matcher explained).
func HasSteps(name string) bool {
	t, ok := registry.types[name]
	return ok && t.hasSteps()
}

func (t *Type) hasSteps() bool {
	return t.Toncenter != "unknown" && !slices.Contains(firstVersion, t.Toncenter)
}

// fullStepRuns makes step runs start at the first matcher (tests).
var fullStepRuns = false

// maxStepDepth bounds how deep steps nest (a step of a newer type lists
// steps of its own, as toncenter's do). No protocol nests deeper than two.
const maxStepDepth = 3

// addSteps adds the steps of every draft of a type that has them, and of
// those steps in turn: c.drafts grows while it is walked.
func (c *classifier) addSteps(strict bool) {
	for i := 0; i < len(c.drafts); i++ {
		d := c.drafts[i]
		if len(d.ancestors) >= maxStepDepth || !registry.byValue[reflect.TypeOf(d.value).Elem()].hasSteps() {
			continue
		}
		c.drafts = append(c.drafts, c.stepsOf(d, strict)...)
	}
}

// stepsOf classifies d's transactions alone, as if nothing else had
// claimed them, with every matcher but those of d's own type (which would
// find d again). A step keeps only d's transactions: a matcher may reach
// past them (an initiator), which belong to another action.
//
// The matchers that ran before the one that found d are skipped: each of
// them visited d's transactions unclaimed and matched none of them (or d
// could not have claimed them), and with every other transaction of the
// trace claimed now it has less to match, not more. That saves most of
// the run (the protocol matchers come first); TestStepRunsSkipNothing
// checks on every fixture trace that the steps are those of a full run.
func (c *classifier) stepsOf(d *draft, strict bool) []*draft {
	saved := make([]bool, len(c.nodes))
	for i, n := range c.nodes {
		saved[i], n.used = n.used, true
	}
	defer func() {
		for i, n := range c.nodes {
			n.used = saved[i]
		}
	}()
	own := make(map[*node]bool, len(d.nodes))
	for _, n := range d.nodes {
		n.used, own[n] = false, true
	}
	sub := &classifier{trace: c.trace, known: c.known, nodes: c.nodes, stepsFor: reflect.TypeOf(d.value)}
	from := d.matcher
	if fullStepRuns {
		from = 0
	}
	sub.runFrom(from, strict)
	ancestors := append([]string{reflect.TypeOf(d.value).Elem().Name()}, d.ancestors...)
	var out []*draft
	for _, s := range sub.drafts {
		if reflect.TypeOf(s.value) == sub.stepsFor {
			continue // added without c.add (logs)
		}
		kept := s.nodes[:0]
		for _, n := range s.nodes {
			if own[n] {
				kept = append(kept, n)
			}
		}
		if len(kept) == 0 {
			continue
		}
		s.nodes, s.parent, s.ancestors = kept, d, ancestors
		out = append(out, s)
	}
	return out
}

// addWithSteps adds d; in the run that looks for d's own steps it adds
// instead the steps its matcher built beside it, which only that matcher
// can shape (a purchase's transfer carries the price and the marketplace).
func (c *classifier) addWithSteps(d *draft, steps ...*draft) {
	if c.stepsFor != reflect.TypeOf(d.value) {
		c.add(d)
		return
	}
	for _, s := range steps {
		c.add(s)
	}
}
