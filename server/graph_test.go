package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// importedServer imports the fee-replay block and every toncenter trace
// (real mainnet data) into a fresh database and serves it.
func importedServer(t *testing.T, db testenv.Database) *fixture {
	t.Helper()
	f, _ := importedStore(t, db)
	return f
}

// importedStore is importedServer with its store.
func importedStore(t *testing.T, db testenv.Database) (*fixture, *store.Store) {
	t.Helper()
	dir := testenv.FixturesDir(t)
	files := []string{testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")}
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	files = append(files, traces...)
	st := importedFixtures(t, db, files)
	return &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})}, st
}

// externalMessages lists the external messages of the fee-replay block
// with their hashes and TEP-467 normalized hashes as tongo computes them
// from the raw block (an implementation independent of ours).
func externalMessages(t *testing.T) (txHashes, hashes, norms []string) {
	t.Helper()
	p, err := ingest.ParseFile(testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	require.NoError(t, err)
	for _, tx := range p.Transactions {
		if tx.InMsg == nil || !tx.InMsg.IsExternalIn() {
			continue
		}
		cells, err := boc.DeserializeBoc(tx.BOC)
		require.NoError(t, err)
		var raw tlb.Transaction
		require.NoError(t, tlb.Unmarshal(cells[0], &raw))
		m := raw.Msgs.InMsg.Value.Value
		require.Equal(t, "ExtInMsgInfo", string(m.Info.SumType))
		norm := m.Hash(true)
		txHashes = append(txHashes, tx.Hash.Base64())
		hashes = append(hashes, tx.InMsg.Hash.Base64())
		norms = append(norms, base64.StdEncoding.EncodeToString(norm[:]))
	}
	require.Len(t, norms, 12, "the fee-replay block has 12 external messages")
	return txHashes, hashes, norms
}

type graphAction struct {
	ActionID              string   `json:"action_id"`
	Type                  string   `json:"type"`
	Transactions          []string `json:"transactions"`
	TraceExternalHashNorm *string  `json:"trace_external_hash_norm"`
	McSeqno               *uint32  `json:"mc_seqno"`
	Accounts              []string `json:"accounts"`
}

// msg_hash finds what happened to a message by its hash or by its
// normalized hash; each action of such a trace carries the normalized hash.
func TestMsgHashFindsActionsOfRealExternalMessages(t *testing.T) {
	txHashes, hashes, norms := externalMessages(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f := importedServer(t, db)
			for i := range norms {
				for _, h := range []string{norms[i], hashes[i], strings.NewReplacer("+", "-", "/", "_").Replace(norms[i])} {
					code, body := f.get(t, url.Values{"msg_hash": {h}, "include_accounts": {"true"}, "limit": {"100"}}.Encode())
					require.Equal(t, http.StatusOK, code, string(body))
					var page struct{ Actions []graphAction }
					require.NoError(t, json.Unmarshal(body, &page))
					require.NotEmpty(t, page.Actions, "msg_hash %s (message %d, tx %s) finds nothing", h, i, txHashes[i])
					for _, a := range page.Actions {
						require.Contains(t, a.Transactions, txHashes[i], "an action found by msg_hash must include the transaction that took the message")
						require.NotNil(t, a.TraceExternalHashNorm)
						require.Equal(t, norms[i], *a.TraceExternalHashNorm)
						require.NotEmpty(t, a.Accounts, "include_accounts lists the accounts")
					}
				}
			}
			// Several at once, and combined with other filters.
			code, body := f.get(t, url.Values{"msg_hash": norms[:3], "exclude_action_type": {"ContractDeploy"}, "limit": {"100"}}.Encode())
			require.Equal(t, http.StatusOK, code, string(body))
			var page struct{ Actions []graphAction }
			require.NoError(t, json.Unmarshal(body, &page))
			require.NotEmpty(t, page.Actions)
			for _, a := range page.Actions {
				require.NotEqual(t, "ContractDeploy", a.Type)
			}
			// A hash of no message finds nothing.
			code, body = f.get(t, "msg_hash="+strings.Repeat("A", 43)+"=")
			require.Equal(t, http.StatusOK, code, string(body))
			require.Contains(t, string(body), `"actions":[]`)
		})
	}
}

const accountPageQuery = `query($a: String!, $first: Int, $after: String) {
  account(address: $a) {
    address user_friendly bounceable non_bounceable status balance is_wallet interfaces domain
    actions(first: $first, after: $after) {
      edges {
        cursor
        node {
          action_id type status value
          details {
            __typename
            ... on TonTransfer { sender recipient amount comment }
            ... on JettonTransfer { sender recipient amount jetton_master sender_wallet recipient_wallet forward_payload }
            ... on JettonSwap { dex sender amount_in amount_out dex_incoming_transfer { source destination amount } }
            ... on JettonBurn { owner jetton_wallet amount }
            ... on JettonMint { recipient recipient_wallet amount jetton_master }
            ... on SmartContractExec { sender contract opcode amount }
            ... on ContractDeploy { address deployer }
            ... on NftItemTransfer { sender recipient nft }
          }
          transactions
          transactions_full { hash lt utime account { address interfaces } success aborted total_fees compute_exit_code trace_id }
          participants { account { address user_friendly } roles }
        }
      }
      pageInfo { hasNextPage endCursor }
      address_book
    }
  }
}`

type accountPage struct {
	Data struct {
		Account struct {
			Address string `json:"address"`
			Actions struct {
				Edges []struct {
					Cursor string `json:"cursor"`
					Node   struct {
						ActionID         string          `json:"action_id"`
						Type             string          `json:"type"`
						Value            json.RawMessage `json:"value"`
						Details          map[string]any  `json:"details"`
						Transactions     []string        `json:"transactions"`
						TransactionsFull []struct {
							Hash    string `json:"hash"`
							Account struct {
								Address string `json:"address"`
							} `json:"account"`
						} `json:"transactions_full"`
						Participants []struct {
							Account struct {
								Address string `json:"address"`
							} `json:"account"`
							Roles []string `json:"roles"`
						} `json:"participants"`
					} `json:"node"`
				} `json:"edges"`
				PageInfo struct {
					HasNextPage bool    `json:"hasNextPage"`
					EndCursor   *string `json:"endCursor"`
				} `json:"pageInfo"`
			} `json:"actions"`
		} `json:"account"`
	} `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// One GraphQL request: an account, its first page of actions with typed
// details of several types, their transactions and participants; then the
// next page by cursor, which is what REST's next offset page holds.
func TestGraphQLAccountPagesByCursorOnImportedData(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f := importedServer(t, db)
			account, first := busyAccount(t, f)
			vars := map[string]any{"a": account, "first": first}
			var p1 accountPage
			require.NoError(t, json.Unmarshal(f.graphql(t, accountPageQuery, vars), &p1))
			require.Empty(t, p1.Errors)
			edges := p1.Data.Account.Actions.Edges
			require.Len(t, edges, first)
			types := map[string]bool{}
			for _, e := range edges {
				n := e.Node
				types[n.Type] = true
				// details is the value, typed: same type, same facts.
				require.Equal(t, n.Type, n.Details["__typename"])
				var value map[string]any
				require.NoError(t, json.Unmarshal(n.Value, &value))
				for k, v := range n.Details {
					if k != "__typename" && v != nil && !isObject(v) {
						require.Equal(t, value[k], v, "%s.%s: details and value differ", n.Type, k)
					}
				}
				// transactions_full follows transactions, and the account
				// takes part in the action.
				require.Len(t, n.TransactionsFull, len(n.Transactions))
				for i, tx := range n.TransactionsFull {
					require.Equal(t, n.Transactions[i], tx.Hash)
				}
				require.True(t, slices.ContainsFunc(n.Participants, func(p struct {
					Account struct {
						Address string `json:"address"`
					} `json:"account"`
					Roles []string `json:"roles"`
				}) bool {
					return p.Account.Address == account && len(p.Roles) > 0
				}), "the account is a participant of its own actions")
			}
			require.GreaterOrEqual(t, len(types), 3, "the first page must show typed details of three types: %v", types)
			require.True(t, p1.Data.Account.Actions.PageInfo.HasNextPage)

			// The next page by cursor equals REST's next page by offset.
			vars["after"] = *p1.Data.Account.Actions.PageInfo.EndCursor
			var p2 accountPage
			require.NoError(t, json.Unmarshal(f.graphql(t, accountPageQuery, vars), &p2))
			require.Empty(t, p2.Errors)
			code, body := f.get(t, url.Values{"account": {account}, "limit": {strconv.Itoa(first)}, "offset": {strconv.Itoa(first)}}.Encode())
			require.Equal(t, http.StatusOK, code)
			var rest restPage
			require.NoError(t, json.Unmarshal(body, &rest))
			var got, want []string
			for _, e := range p2.Data.Account.Actions.Edges {
				got = append(got, e.Node.ActionID)
			}
			for _, a := range rest.Actions {
				want = append(want, a.ActionID)
			}
			require.Equal(t, want, got)

			// A cursor that is not ours is a client error naming after.
			var bad accountPage
			vars["after"] = "not-a-cursor"
			require.NoError(t, json.Unmarshal(f.graphql(t, accountPageQuery, vars), &bad))
			require.NotEmpty(t, bad.Errors)
			require.Equal(t, "after", bad.Errors[0].Extensions["field"])
		})
	}
}

// busyAccount finds an account whose newest actions span at least three
// types, and how many of them make a page that shows three.
func busyAccount(t *testing.T, f *fixture) (string, int) {
	t.Helper()
	code, body := f.get(t, "limit=1000&include_accounts=true")
	require.Equal(t, http.StatusOK, code)
	var all struct{ Actions []graphAction }
	require.NoError(t, json.Unmarshal(body, &all))
	count := map[string]int{}
	for _, a := range all.Actions {
		for _, acc := range a.Accounts {
			count[acc]++
		}
	}
	accounts := make([]string, 0, len(count))
	for a := range count {
		accounts = append(accounts, a)
	}
	slices.SortFunc(accounts, func(a, b string) int { return count[b] - count[a] })
	for _, acc := range accounts {
		code, body := f.get(t, url.Values{"account": {acc}, "limit": {"20"}}.Encode())
		require.Equal(t, http.StatusOK, code)
		var page struct{ Actions []graphAction }
		require.NoError(t, json.Unmarshal(body, &page))
		types := map[string]bool{}
		for i, a := range page.Actions {
			types[a.Type] = true
			if len(types) >= 3 && i+1 < len(page.Actions) {
				return acc, i + 1
			}
		}
	}
	t.Fatal("no account with three action types in the fixtures")
	return "", 0
}

func isObject(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// A page that does not select its address book reads none (resolvers'
// selects), and its actions, edges and paging are those of the page that
// does; a book selected through a fragment counts as selected.
func TestGraphQLPageWithoutItsBook(t *testing.T) {
	f, st := importedStore(t, testenv.Databases(t)[0])
	account, _ := busyAccount(t, f)
	const page = `actions(filter:{account:$a}, limit: 5) { actions { action_id type value } %s }
		account(address:$a) { actions(first: 5) { edges { cursor node { action_id } } pageInfo { hasNextPage endCursor } %s } }`
	run := func(listBook, connBook, fragments string) map[string]any {
		q := "query($a:String!) { " + fmt.Sprintf(page, listBook, connBook) + " }" + fragments
		var out struct {
			Data   map[string]any
			Errors []any
		}
		require.NoError(t, json.Unmarshal(f.graphql(t, q, map[string]any{"a": account}), &out))
		require.Empty(t, out.Errors, q)
		return out.Data
	}
	with, without := run("address_book", "address_book", ""), run("", "", "")
	viaFragment := run("...Book", "... on ActionConnection { address_book }", " fragment Book on ActionList { address_book }")
	require.NotEmpty(t, with["actions"].(map[string]any)["address_book"])
	require.Equal(t, with, viaFragment)
	delete(with["actions"].(map[string]any), "address_book")
	delete(with["account"].(map[string]any)["actions"].(map[string]any), "address_book")
	require.Equal(t, with, without)

	// Proof that no book is read: with a table of the book's facts gone,
	// the page without it still answers.
	_, err := st.DB().ExecContext(context.Background(), "ALTER TABLE dns_names RENAME TO dns_names_gone")
	require.NoError(t, err)
	require.Equal(t, without, run("", "", ""))
	var broken struct{ Errors []any }
	require.NoError(t, json.Unmarshal(f.graphql(t, "query($a:String!) { "+fmt.Sprintf(page, "address_book", "")+" }", map[string]any{"a": account}), &broken))
	require.NotEmpty(t, broken.Errors, "a page with its book reads dns_names")
}
