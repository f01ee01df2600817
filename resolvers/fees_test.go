package resolvers

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/preview"
)

// A preview's actions are in no store: GraphQL's Action.children and
// Action.parent find its steps through the loaders primeLinks fills. The
// actions are the real Getgems purchase of the fixtures, split as
// preview.New splits them; the store is empty, so only priming answers.
func TestPreviewStepsThroughTheLinks(t *testing.T) {
	tr, err := chain.ParseToncenterFile(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces",
		"mG5NGg-37hpz1Vgs5KvDo0HKgtQKCnMbmGEpdApY5Ls=.json"))
	require.NoError(t, err)
	pv := &preview.Preview{}
	for _, trace := range chain.NewAssembler().Add(tr.Transactions) {
		for _, a := range actions.Classify(trace, tr.Known) {
			if a.ParentActionID != "" {
				pv.Steps = append(pv.Steps, &a)
			} else {
				pv.Actions = append(pv.Actions, &a)
			}
		}
	}
	var purchase *chain.Action
	for _, a := range pv.Actions {
		if a.Type == "NftPurchase" {
			purchase = a
		}
	}
	require.NotNil(t, purchase)
	require.Len(t, pv.Steps, 2)

	r := &Resolver{Store: storetest.Open(t, testenv.Databases(t)[0].URL)}
	ctx := r.WithLoaders(graphql.WithOperationContext(context.Background(), &graphql.OperationContext{}))
	r.primeLinks(ctx, pv)
	kids, err := r.ChildrenOf(ctx, purchase)
	require.NoError(t, err)
	require.ElementsMatch(t, pv.Steps, kids)
	require.True(t, kids[0].EndLt < kids[1].EndLt || kids[0].EndLt == kids[1].EndLt && kids[0].ActionID < kids[1].ActionID,
		"children in page order")
	for _, s := range pv.Steps {
		p, err := r.ParentOf(ctx, s)
		require.NoError(t, err)
		require.Same(t, purchase, p)
		kids, err := r.ChildrenOf(ctx, s)
		require.NoError(t, err)
		require.Empty(t, kids)
	}
}
