package main

import (
	"slices"

	"github.com/tonql/tonql/chain"
)

// sampleTraces keeps the actions of one trace in every (by the trace id's
// first byte, so a trace is kept or dropped whole) and of every trace an
// action of hot takes part in: the measured pages read hot's rows, and the
// rest fill the tables' indexes to their depth without the disk all of
// them would take.
func sampleTraces(actions []chain.Action, every int, hot string) []chain.Action {
	if every <= 1 {
		return actions
	}
	keep := map[string]bool{}
	for i := range actions {
		a := &actions[i]
		id, _ := chain.ParseHash(a.TraceID)
		if int(id[0])%every == 0 || slices.Contains(a.Accounts, hot) {
			keep[a.TraceID] = true
		}
	}
	out := make([]chain.Action, 0, len(keep))
	for i := range actions {
		if keep[actions[i].TraceID] {
			out = append(out, actions[i])
		}
	}
	return out
}
