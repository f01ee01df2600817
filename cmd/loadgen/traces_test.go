package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
)

// The rows loadgen writes behind generated actions hang together as an
// import's do: every action's transactions, each one after the first
// taking the message the one before sent, and one trace row per trace
// counting its transactions within its lt range; each external message
// with a normalized hash of its own (the planner's statistics of hash_norm
// are the chain's, not one per account); sampling keeps traces
// whole and every trace of the first hot account.
func TestChainOfGeneratedActions(t *testing.T) {
	p := synth.Params{Seed: 3, Actions: 2000, Accounts: 100, HotAccounts: 2, HotActions: 200, StartUtime: 1_760_000_000,
		SwapWeight: 11, Seconds: 365 * 86400}
	var actions []chain.Action
	require.NoError(t, synth.Generate(p, func(a *chain.Action) error { actions = append(actions, *a); return nil }))
	swaps := 0
	for _, a := range actions {
		if a.Type == "JettonSwap" {
			swaps++
		}
	}
	require.InDelta(t, 0.109, float64(swaps)/float64(len(actions)), 0.03, "-swap-weight 11: about a tenth are swaps")
	span := actions[len(actions)-1].EndUtime - actions[0].EndUtime
	require.InDelta(t, float64(p.Seconds), float64(span), float64(p.Seconds)/50, "-seconds spreads the set over a year")

	txs, traces := synth.Chain(actions)
	n := 0
	byHash := map[chain.Hash]*chain.Transaction{}
	for _, a := range actions {
		n += len(a.Transactions)
	}
	require.Len(t, txs, n)
	norms := map[chain.Hash]bool{}
	for i, tx := range txs {
		byHash[tx.Hash] = tx
		require.NotNil(t, tx.InMsg)
		if tx.InMsg.Source == "" { // the first of an action's: an external message
			norm, ok := chain.NormalizedHash(tx.InMsg)
			require.True(t, ok)
			require.False(t, norms[norm], "each external message's normalized hash is its own, as on the chain")
			norms[norm] = true
			continue
		}
		prev := txs[i-1]
		require.Equal(t, tx.InMsg.Hash, prev.OutMsgs[len(prev.OutMsgs)-1].Hash, "sent by the transaction before")
		require.Equal(t, prev.Account, tx.InMsg.Source)
	}
	count := map[chain.Hash]int{}
	for _, tx := range txs {
		count[tx.TraceID]++
	}
	require.Len(t, traces, len(count))
	for _, tr := range traces {
		require.Equal(t, count[tr.ID], tr.Transactions)
	}
	for _, tx := range txs {
		for _, tr := range traces {
			if tr.ID == tx.TraceID {
				require.True(t, tx.Lt >= tr.StartLt && tx.Lt <= tr.EndLt, "within its trace's lt range")
			}
		}
	}

	hot := synth.HotAccount(p.Seed, 0)
	kept := sampleTraces(actions, 8, hot)
	require.Less(t, len(kept), len(actions)/2)
	keptTraces := map[string]int{}
	for _, a := range kept {
		keptTraces[a.TraceID]++
	}
	for _, a := range actions {
		if keptTraces[a.TraceID] > 0 {
			continue
		}
		require.NotContains(t, a.Accounts, hot, "every trace of the hot account is kept")
	}
	all := map[string]int{}
	for _, a := range actions {
		all[a.TraceID]++
	}
	for id, k := range keptTraces {
		require.Equal(t, all[id], k, "a trace is kept whole")
	}
}
