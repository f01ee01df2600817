package preview

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// TestPreviewMatchesBlock previews the 12 external messages of the replayed
// block, each given whole as its wallet signed it, on the states before the
// block: the actions equal what the decoder derives from the real traces in
// the block (type, status, value: amounts and parties), and every
// transaction's fees equal what the chain charged.
func TestPreviewMatchesBlock(t *testing.T) {
	r := loadReplay(t)
	var nActions, nTxs int
	for _, x := range r.msgs {
		name := x.Account.ToRaw()[:12]
		real := r.traces[chain.RawAddress(x.Account)]
		require.NotNil(t, real, name)
		est := r.estimatorOn(r.sourceFor(real), nil)
		_, p := r.preview(t, est, fees.Params{Boc: x.Message})
		require.True(t, p.Complete, "%s: stopped %+v", name, p.Stopped)
		require.Empty(t, p.Stopped, name)

		// the same transactions, hop for hop, with the chain's fees
		chainTxs := breadthFirst(real)
		require.Len(t, p.Transactions, len(chainTxs), name)
		for i, got := range p.Transactions {
			want := chainTxs[i]
			require.Equal(t, want.Account, got.Tx.Account, "%s tx %d", name, i)
			charged := chargedFees(t, want)
			charged.Type = "" // a preview's transactions show v3's shape
			if i > 0 {
				charged.InFwdFee = 0 // internal: paid by the sender
			}
			require.Equal(t, charged, got.Fees, "%s tx %d (%s)", name, i, got.Tx.Account)
			require.Equal(t, want.TotalFees, got.Tx.TotalFees, "%s tx %d total_fees", name, i)
			require.Equal(t, want.Success(), got.Tx.Success(), "%s tx %d", name, i)
			nTxs++
		}

		// the decoder's actions on the real trace: the same types,
		// statuses and values (amounts, parties, comments, payloads)
		want := actions.Classify(real, nil)
		require.Len(t, p.Actions, len(want), name)
		lts := ltPositions(chainTxs, p.Transactions)
		for _, w := range want {
			got := findAction(p.Actions, w)
			require.NotNil(t, got, "%s: no %s like %s", name, w.Type, w.Value)
			sameValue(t, name, w, *got, lts)
		}
		nActions += len(want)
	}
	t.Logf("12 previews: %d transactions and %d actions as in the block", nTxs, nActions)
}

// ltPositions maps each logical time of the real trace to the emulated
// transaction at the same place in the trace.
func ltPositions(real []*chain.Transaction, got []*Transaction) map[string]string {
	m := map[string]string{}
	for i := range real {
		m[strconv.FormatUint(real[i].Lt, 10)] = strconv.FormatUint(got[i].Tx.Lt, 10)
	}
	return m
}

// findAction is the preview's action of w's type that involves the same
// accounts, in the same order.
func findAction(as []*chain.Action, w chain.Action) *chain.Action {
	for _, a := range as {
		if a.Type == w.Type && slices.Equal(a.Addresses, w.Addresses) {
			return a
		}
	}
	return nil
}

// sameValue compares two actions' values field by field. The one thing a
// preview cannot know is where the collator will put the transactions in
// its block: a contract that makes a query id of its current logical time
// (Telemint's collection does) gives the logical time of the emulated
// transaction at the same place in the trace, which is checked.
func sameValue(t *testing.T, name string, want, got chain.Action, lts map[string]string) {
	t.Helper()
	require.Equal(t, want.Status, got.Status, "%s %s", name, want.Type)
	var w, g map[string]any
	require.NoError(t, json.Unmarshal(want.Value, &w))
	require.NoError(t, json.Unmarshal(got.Value, &g))
	require.Equal(t, len(w), len(g), "%s %s: %s vs %s", name, want.Type, want.Value, got.Value)
	for k, wv := range w {
		gv := g[k]
		if k == "query_id" && wv != gv {
			require.Equal(t, lts[wv.(string)], gv, "%s %s: query_id %v is no logical time of the trace", name, want.Type, wv)
			continue
		}
		require.Equal(t, wv, gv, "%s %s.%s", name, want.Type, k)
	}
}

// TestCachedPreview: a preview served from the cache (the transactions as
// BOCs, decoded again) is the preview of a fresh emulation.
func TestCachedPreview(t *testing.T) {
	r := loadReplay(t)
	x := r.msgs[3] // a swap: ten transactions
	est := fees.New(r.source, cache.NewMemory(100), fees.Options{Clock: fees.FixedClock(fees.ChainTime{Unix: uint32(r.at.Unix()), Lt: blockLt})})
	req, err := fees.ParseParams(fees.Params{Boc: x.Message})
	require.NoError(t, err)
	build := func() (*Preview, bool) {
		em, err := est.Emulate(context.Background(), req)
		require.NoError(t, err)
		p, err := Build(em, nil, Limits{MaxDepth: 8, MaxTransactions: 32})
		require.NoError(t, err)
		return p, em.Result.Cached
	}
	fresh, cached := build()
	require.False(t, cached)
	again, cached := build()
	require.True(t, cached)
	require.Equal(t, asJSON(t, fresh), asJSON(t, again))
	require.Len(t, again.Transactions, len(fresh.Transactions))
	require.NotEmpty(t, again.Actions)
}

func asJSON(t *testing.T, p *Preview) string {
	t.Helper()
	b, err := json.Marshal(struct {
		T []*Transaction
		A []*chain.Action
		B BalanceChanges
		S []*Stop
	}{p.Transactions, p.Actions, p.BalanceChanges, p.Stopped})
	require.NoError(t, err)
	return string(b)
}
