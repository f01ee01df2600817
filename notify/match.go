package notify

import (
	"slices"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// matches tells whether a live event passes f. It is the in-memory reading
// of the filter the store applies in SQL (store.ActionsAfter, which the
// replay uses): a commit's actions are read once for every subscriber and
// tested here, instead of one query per subscriber per commit. The stream
// tests compare the two over every filter on the mainnet fixtures.
func matches(f *store.ActionFilter, e *Event) bool {
	a := e.Action
	switch {
	case f.Account != "" && !slices.Contains(a.Accounts, f.Account),
		!typeShown(f, a),
		f.StartLt != nil && a.StartLt < *f.StartLt,
		f.EndLt != nil && a.EndLt > *f.EndLt,
		f.StartUtime != nil && a.StartUtime < *f.StartUtime,
		f.EndUtime != nil && a.EndUtime > *f.EndUtime,
		len(f.ActionIDs) > 0 && !slices.Contains(f.ActionIDs, a.ActionID),
		len(f.TraceIDs) > 0 && !slices.Contains(f.TraceIDs, a.TraceID),
		f.McSeqno != nil && (a.McSeqno == nil || *a.McSeqno != *f.McSeqno),
		len(f.TxHashes) > 0 && !anyIn(a.Transactions, f.TxHashes):
		return false
	}
	if f.TxLt != nil && (e.facts == nil || !slices.Contains(e.facts.TxLts, *f.TxLt)) {
		return false
	}
	if len(f.MsgHashes) > 0 && (e.facts == nil || !anyIn(e.facts.MsgHashes, f.MsgHashes)) {
		return false
	}
	return true
}

// typeShown tells whether f's type filters show an action of a's type
// and ancestors: action_type (or supported_action_types without it),
// exclude_action_type and the nested rule. A trace event's actions pass
// it on toncenter's protocol, as toncenter filters a TraceNotification's
// actions by the same parameters as its actions.
func typeShown(f *store.ActionFilter, a *chain.Action) bool {
	return (len(f.Types) == 0 || slices.Contains(f.Types, a.Type)) &&
		(len(f.ExcludeTypes) == 0 || !slices.Contains(f.ExcludeTypes, a.Type)) &&
		f.Nested.Shows(a.Ancestors)
}

func anyIn(have, want []string) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// needsFacts tells which store.MatchFacts a filter tests.
func needsFacts(f *store.ActionFilter) (lts, msgs bool) {
	return f.TxLt != nil, len(f.MsgHashes) > 0
}
