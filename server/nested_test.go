package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// nestedServer serves storetest's purchase with its two nested steps.
func nestedServer(t *testing.T, db testenv.Database) (*fixture, *storetest.Nested) {
	t.Helper()
	st := storetest.Open(t, db.URL)
	n := storetest.NestedBatch(0, 0)
	require.NoError(t, st.SaveBatch(context.Background(), n.Batch))
	return &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})}, n
}

// Nested actions through REST and GraphQL, toncenter's rule: by default
// only top-level actions (the purchase); supported_action_types=v1 shows
// its steps and not the purchase, whose type v1 lacks; a client that
// supports purchases sees the purchase and not its steps; a step's id
// alone finds nothing by default; the same on an account's pages.
func TestNestedActionsInLists(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f, n := nestedServer(t, db)
			purchase, item, payment, plain := storetest.PurchaseID, storetest.ItemID, storetest.PaymentID, storetest.TransferID
			for _, c := range []struct {
				q    url.Values
				want []string
			}{
				{url.Values{}, []string{plain, purchase}},
				{url.Values{"supported_action_types": {"v1"}}, []string{plain, item, payment}},
				{url.Values{"supported_action_types": {"v1", "nft_purchase"}}, []string{plain, purchase}},
				{url.Values{"supported_action_types": {"v3"}}, []string{plain, purchase}},
				{url.Values{"supported_action_types": {"latest"}}, []string{plain, purchase}},
				// action_type lifts supported's type filter, not its nested rule.
				{url.Values{"supported_action_types": {"v1"}, "action_type": {"NftPurchase,TonTransfer"}}, []string{plain, payment, purchase}},
				{url.Values{"account": {n.Buyer}}, []string{plain, purchase}},
				{url.Values{"account": {n.Buyer}, "supported_action_types": {"v1"}}, []string{plain, item, payment}},
				{url.Values{"action_id": {item}}, []string{}},
				{url.Values{"action_id": {item}, "supported_action_types": {"v1"}}, []string{item}},
				{url.Values{"trace_id": {n.Purchase.TraceID}}, []string{purchase}},
				{url.Values{"tx_hash": {n.Item.TxHash}, "supported_action_types": {"v1"}}, []string{item}},
			} {
				require.Equal(t, c.want, restIDs(t, f, c.q), c.q.Encode())
				// GraphQL's actions: the same filter, the same answer.
				filter := map[string]any{}
				for k, v := range c.q {
					if k == "sort" || k == "limit" { // restIDs' paging
						continue
					}
					if k == "account" {
						filter[k] = v[0]
					} else {
						filter[k] = v
					}
				}
				var got struct {
					Data struct {
						Actions struct {
							Actions []struct {
								ActionID string `json:"action_id"`
							} `json:"actions"`
						} `json:"actions"`
					} `json:"data"`
				}
				raw := f.graphql(t, `query($f: ActionFilter) { actions(filter: $f, sort: asc, limit: 100) { actions { action_id } } }`,
					map[string]any{"f": filter})
				require.NoError(t, json.Unmarshal(raw, &got), string(raw))
				gids := []string{}
				for _, a := range got.Data.Actions.Actions {
					gids = append(gids, a.ActionID)
				}
				require.Equal(t, c.want, gids, "graphql %s: %s", c.q.Encode(), raw)
			}

			// An account's connection, a trace's and a transaction's actions.
			raw := f.graphql(t, `query($a: String!, $t: String!) {
				account(address: $a) { all: actions(sort: asc) { edges { node { action_id } } }
					v1: actions(sort: asc, filter: {supported_action_types: ["v1"]}) { edges { node { action_id } } } }
				trace(trace_id: $t) { actions { action_id } transactions { hash actions { action_id } } } }`,
				map[string]any{"a": n.Buyer, "t": n.Purchase.TraceID})
			var links struct {
				Data struct {
					Account struct {
						All, V1 struct {
							Edges []struct {
								Node struct {
									ActionID string `json:"action_id"`
								} `json:"node"`
							} `json:"edges"`
						}
					} `json:"account"`
					Trace struct {
						Actions []struct {
							ActionID string `json:"action_id"`
						} `json:"actions"`
						Transactions []struct {
							Actions []struct {
								ActionID string `json:"action_id"`
							} `json:"actions"`
						} `json:"transactions"`
					} `json:"trace"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(raw, &links), string(raw))
			edgeIDs := func(es []struct {
				Node struct {
					ActionID string `json:"action_id"`
				} `json:"node"`
			}) []string {
				var out []string
				for _, e := range es {
					out = append(out, e.Node.ActionID)
				}
				return out
			}
			require.Equal(t, []string{plain, purchase}, edgeIDs(links.Data.Account.All.Edges), string(raw))
			require.Equal(t, []string{plain, item, payment}, edgeIDs(links.Data.Account.V1.Edges), string(raw))
			require.Len(t, links.Data.Trace.Actions, 1, string(raw))
			require.Equal(t, purchase, links.Data.Trace.Actions[0].ActionID)
			require.Len(t, links.Data.Trace.Transactions, 3, string(raw))
			for _, tx := range links.Data.Trace.Transactions {
				require.Len(t, tx.Actions, 1, string(raw))
				require.Equal(t, purchase, tx.Actions[0].ActionID)
			}
		})
	}
}

// Action.children, parent and ancestor_types: the purchase lists its steps
// in page order, each step names the purchase as parent (found by id,
// though lists hide it) and its type as ancestor; a top-level action has
// no parent, no children and no ancestors. The children of a page are read
// in one statement.
func TestGraphQLNestedActionLinks(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f, _ := nestedServer(t, db)
			raw := f.graphql(t, `{ actions(sort: asc) { actions { action_id type ancestor_types parent { action_id }
				children { action_id type ancestor_types parent { action_id type } children { action_id } } } } }`, nil)
			type node struct {
				ActionID      string   `json:"action_id"`
				Type          string   `json:"type"`
				AncestorTypes []string `json:"ancestor_types"`
				Parent        *node    `json:"parent"`
				Children      []node   `json:"children"`
			}
			var got struct {
				Data struct {
					Actions struct {
						Actions []node `json:"actions"`
					} `json:"actions"`
				} `json:"data"`
				Errors []any `json:"errors"`
			}
			require.NoError(t, json.Unmarshal(raw, &got), string(raw))
			require.Empty(t, got.Errors, string(raw))
			as := got.Data.Actions.Actions
			require.Len(t, as, 2, string(raw))
			plain, purchase := as[0], as[1]
			require.Equal(t, storetest.TransferID, plain.ActionID)
			require.Nil(t, plain.Parent)
			require.Equal(t, []node{}, plain.Children)
			require.Equal(t, []string{}, plain.AncestorTypes)
			require.Equal(t, storetest.PurchaseID, purchase.ActionID)
			require.Nil(t, purchase.Parent)
			require.Len(t, purchase.Children, 2, string(raw))
			for i, want := range []string{storetest.ItemID, storetest.PaymentID} {
				c := purchase.Children[i]
				require.Equal(t, want, c.ActionID)
				require.Equal(t, []string{"NftPurchase"}, c.AncestorTypes)
				require.NotNil(t, c.Parent)
				require.Equal(t, storetest.PurchaseID, c.Parent.ActionID)
				require.Equal(t, "NftPurchase", c.Parent.Type)
				require.Equal(t, []node{}, c.Children)
			}

			// A v1 client's page: the steps, each linking up to the purchase.
			raw = f.graphql(t, `{ actions(sort: asc, filter: {supported_action_types: ["v1"], action_id: ["`+storetest.ItemID+`"]}) {
				actions { action_id ancestor_types parent { action_id children { action_id } } } } }`, nil)
			require.JSONEq(t, `{"data":{"actions":{"actions":[{"action_id":"`+storetest.ItemID+`","ancestor_types":["NftPurchase"],
				"parent":{"action_id":"`+storetest.PurchaseID+`","children":[{"action_id":"`+storetest.ItemID+`"},{"action_id":"`+storetest.PaymentID+`"}]}}]}}}`, string(raw))
		})
	}
}

// batchWait is the loaders' wait in the tests that count batches: 500us
// (the default) split a level of 10 parents into 3 batches under -race on
// a loaded 2-core machine.
const batchWait = 50 * time.Millisecond

// The children of a page are read in one statement however many parents
// (two at most: a loader's wait may split a batch), and the parents of its
// nested actions in one more.
func TestGraphQLNestedLinksBatch(t *testing.T) {
	db := testenv.Databases(t)[0]
	st := storetest.Open(t, db.URL)
	require.NoError(t, st.SaveBatch(context.Background(), storetest.NestedBatch(20, 0).Batch))
	c := &statementCounter{counts: map[string]int{}, markers: []string{
		"PARTITION BY a.parent_action_id", // ChildActions
		"SELECT a.action_id AS link",      // ActionsByID
	}}
	st.ObserveStatements(c.observe)
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st, LoaderWait: batchWait}})
	code, a, raw := postGQL(t, h, `{ actions(limit: 25, filter: {supported_action_types: ["v1"]}) {
		actions { action_id children { action_id } parent { action_id } } } }`, nil)
	require.Equal(t, http.StatusOK, code, raw)
	require.Empty(t, a.Errors, raw)
	require.Contains(t, raw, `"parent":{"action_id":"`+storetest.PurchaseID+`"}`)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.markers {
		require.GreaterOrEqual(t, c.counts[m], 1, m)
		require.LessOrEqual(t, c.counts[m], 2, "%s ran %d times for 23 parents", m, c.counts[m])
	}
}
