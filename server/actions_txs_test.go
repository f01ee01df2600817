package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// restTxFields is the GraphQL selection of Transaction that REST's
// transactions_full shows (schema.graphqls documents it on the type).
const restTxFields = `hash account: account_address lt now mc_block_seqno trace_id orig_status end_status
    total_fees success aborted compute_exit_code in_msg { ` + restMsgFields + ` } out_msgs { ` + restMsgFields + ` }`

const restMsgFields = `hash source destination value fwd_fee created_lt opcode bounce bounced hash_norm
    message_content { body } init_state { body }`

// supportedV1OrNamed is the reference of supported_action_types for the
// generated set, written apart from the resolver's table: every generated
// type is in v1 but NftPurchase, which v3, v4, latest and nft.v3 name.
func supportedV1OrNamed(values []string, typ string) bool {
	if len(values) == 0 || typ != "NftPurchase" {
		return true
	}
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if slices.Contains([]string{"v3", "v4", "latest", "nft.v3", "NftPurchase", "nft_purchase"}, n) {
				return true
			}
		}
	}
	return false
}

// On imported mainnet data (transactions and messages stored):
// include_transactions=true gives each action its transactions as objects,
// equal to GraphQL's transactions_full read both ways (with the page, and
// through the loader); without it the answer is unchanged byte for byte.
func TestActionsIncludeTransactionsImported(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f := importedServer(t, db)
			// Pages of 20: GraphQL's complexity limit counts every message
			// field of every transaction.
			inMsgs, outMsgs, bodies := 0, 0, 0
			for offset := 0; offset < 320; offset += 20 {
				in, out, b := checkIncludeTransactions(t, f, offset)
				inMsgs, outMsgs, bodies = inMsgs+in, outMsgs+out, bodies+b
			}
			require.Greater(t, inMsgs, 300, "transactions carry their in_msg")
			require.Greater(t, outMsgs, 100, "and their out_msgs")
			require.Greater(t, bodies, 50)
		})
	}
}

// checkIncludeTransactions checks one page and counts the messages shown.
func checkIncludeTransactions(t *testing.T, f *fixture, offset int) (inMsgs, outMsgs, bodies int) {
	page := "limit=20&sort=asc&offset=" + strconv.Itoa(offset)
	code, plain := f.get(t, page)
	require.Equal(t, http.StatusOK, code)
	require.NotContains(t, string(plain), "transactions_full")
	_, off := f.get(t, page+"&include_transactions=false")
	require.Equal(t, string(plain), string(off), "include_transactions=false changes nothing")

	code, body := f.get(t, page+"&include_transactions=true")
	require.Equal(t, http.StatusOK, code, string(body))
	var got struct {
		Actions []struct {
			Transactions     []string `json:"transactions"`
			TransactionsFull []struct {
				Hash    string                      `json:"hash"`
				Account string                      `json:"account"`
				InMsg   *map[string]json.RawMessage `json:"in_msg"`
				OutMsgs []struct {
					MessageContent *struct {
						Body string `json:"body"`
					} `json:"message_content"`
				} `json:"out_msgs"`
			} `json:"transactions_full"`
		} `json:"actions"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	require.Len(t, got.Actions, 20)
	for _, a := range got.Actions {
		require.Len(t, a.TransactionsFull, len(a.Transactions), "every transaction of the action is stored")
		for i, tx := range a.TransactionsFull {
			require.Equal(t, a.Transactions[i], tx.Hash)
			_, err := chain.NormalizeAddress(tx.Account)
			require.NoError(t, err)
			if tx.InMsg != nil {
				inMsgs++
			}
			outMsgs += len(tx.OutMsgs)
			for _, m := range tx.OutMsgs {
				if m.MessageContent != nil {
					_, err := base64.StdEncoding.DecodeString(m.MessageContent.Body)
					require.NoError(t, err)
					bodies++
				}
			}
		}
	}
	// Without the objects, the page is the plain page.
	var withTx, without map[string]any
	require.NoError(t, json.Unmarshal(body, &withTx))
	require.NoError(t, json.Unmarshal(plain, &without))
	for _, a := range withTx["actions"].([]any) {
		delete(a.(map[string]any), "transactions_full")
	}
	require.Equal(t, without, withTx)

	query := strings.Replace(allFields, "mc_seqno }", "mc_seqno transactions_full { "+restTxFields+" } }", 1)
	for _, include := range []bool{true, false} {
		var gq struct {
			Data struct {
				Actions json.RawMessage `json:"actions"`
			} `json:"data"`
			Errors []any `json:"errors"`
		}
		vars := map[string]any{"f": map[string]any{"include_transactions": include}, "limit": 20, "offset": offset, "sort": "asc"}
		require.NoError(t, json.Unmarshal(f.graphql(t, query, vars), &gq))
		require.Empty(t, gq.Errors)
		require.Equal(t, canonical(t, body), canonical(t, gq.Data.Actions), "REST and GraphQL (include_transactions %v) differ", include)
	}
	return inMsgs, outMsgs, bodies
}

// supported_action_types in GraphQL: the same checks and the same rows.
func TestActionsSupportedActionTypesGraphQL(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, f *fixture) {
		var gq struct {
			Data struct {
				Actions struct {
					Actions []struct {
						Type string `json:"type"`
					} `json:"actions"`
				} `json:"actions"`
			} `json:"data"`
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		q := `query($f: ActionFilter) { actions(filter: $f, limit: 1000) { actions { type } } }`
		body := f.graphql(t, q, map[string]any{"f": map[string]any{"supported_action_types": []string{"v2"}}})
		require.NoError(t, json.Unmarshal(body, &gq))
		require.Empty(t, gq.Errors)
		require.NotEmpty(t, gq.Data.Actions.Actions)
		for _, a := range gq.Data.Actions.Actions {
			require.NotEqual(t, "NftPurchase", a.Type, "v2 does not name nft_purchase")
		}
		gq.Errors = nil
		body = f.graphql(t, q, map[string]any{"f": map[string]any{"supported_action_types": []string{"v2", "nft.v9"}}})
		require.NoError(t, json.Unmarshal(body, &gq))
		require.Len(t, gq.Errors, 1)
		require.Equal(t, "INVALID_INPUT", gq.Errors[0].Extensions["code"])
		require.Equal(t, "supported_action_types", gq.Errors[0].Extensions["field"])
		require.Contains(t, gq.Errors[0].Message, "nft.v9")
	})
}

// BenchmarkActionsIncludeTransactions: a page of 250 actions with their
// transactions and messages (SQLite, or Postgres with TEST_PG_DSN), beside
// the same page without them.
func BenchmarkActionsIncludeTransactions(b *testing.B) {
	ctx := context.Background()
	db := testenv.Databases(b)[0]
	st := storetest.Open(b, db.URL)
	batch := &store.Batch{}
	p := synth.Params{Seed: 3, Actions: 3000, Accounts: 200, HotAccounts: 2, HotActions: 100, StartUtime: 1_700_000_000}
	require.NoError(b, synth.Generate(p, func(a *chain.Action) error {
		batch.Actions = append(batch.Actions, *a)
		for i, h := range a.Transactions {
			hash, _ := chain.ParseHash(h)
			tx := &chain.Transaction{Hash: hash, Account: a.Participants[0].Address, Lt: a.TxLts[i], Utime: a.StartUtime,
				OrigStatus: "active", EndStatus: "active", TotalFees: 1000, ComputeSuccess: true, ActionSuccess: true,
				InMsg:   &chain.Message{Hash: hash, Source: a.Participants[0].Address, Destination: a.Participants[0].Address, Value: 1e9, Body: bytes.Repeat([]byte{7}, 60)},
				OutMsgs: []chain.Message{{Hash: hash, Source: a.Participants[0].Address, Destination: a.Participants[0].Address, Value: 1, Body: bytes.Repeat([]byte{9}, 60)}}}
			batch.Transactions = append(batch.Transactions, tx)
		}
		return nil
	}))
	require.NoError(b, st.SaveBatch(ctx, batch))
	h := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
	for _, q := range []string{"limit=250", "limit=250&include_transactions=true"} {
		b.Run(q, func(b *testing.B) {
			size := 0
			for b.Loop() {
				rec := doRequest(h, http.MethodGet, "/api/v3/actions?"+q, "")
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Body.String())
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/page")
		})
	}
}

// An account's connection takes supported_action_types as the actions
// filter does: for an account with actions of types v1 does not name, the
// connection with v1 is REST's page with v1, and holds none of them.
func TestAccountConnectionSupportedActionTypes(t *testing.T) {
	v1 := map[string]bool{}
	for _, name := range []string{"SmartContractExec", "ContractDeploy", "TonTransfer", "StakeDeposit", "StakeWithdrawal",
		"StakeWithdrawalRequest", "DexDepositLiquidity", "JettonTransfer", "NftItemTransfer", "NftMint", "JettonBurn",
		"JettonMint", "JettonSwap", "ChangeDns", "DeleteDns", "RenewDns", "Subscribe", "DexWithdrawLiquidity",
		"Unsubscribe", "ElectionDeposit", "ElectionRecover", "AuctionBid", "TickTock"} {
		v1[name] = true
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f := importedServer(t, db)
			code, body := f.get(t, "limit=1000&include_accounts=true")
			require.Equal(t, http.StatusOK, code)
			var all struct{ Actions []graphAction }
			require.NoError(t, json.Unmarshal(body, &all))
			// An account with actions of both kinds, so the filter shows.
			newer, older := map[string]bool{}, map[string]bool{}
			for _, a := range all.Actions {
				for _, acc := range a.Accounts {
					if v1[a.Type] {
						older[acc] = true
					} else {
						newer[acc] = true
					}
				}
			}
			account := ""
			for acc := range newer {
				if older[acc] && (account == "" || acc < account) {
					account = acc
				}
			}
			require.NotEmpty(t, account, "no account has actions both in v1 and beyond")

			const query = `query($a: String!) { account(address: $a) {
				actions(filter: {supported_action_types: ["v1"]}, first: 1000, sort: asc) { edges { node { action_id type } } } } }`
			var page struct {
				Data struct {
					Account struct {
						Actions struct {
							Edges []struct{ Node graphAction } `json:"edges"`
						} `json:"actions"`
					} `json:"account"`
				} `json:"data"`
				Errors []any `json:"errors"`
			}
			require.NoError(t, json.Unmarshal(f.graphql(t, query, map[string]any{"a": account}), &page))
			require.Empty(t, page.Errors)
			var got []string
			for _, e := range page.Data.Account.Actions.Edges {
				require.True(t, v1[e.Node.Type], "%s is not a v1 type", e.Node.Type)
				got = append(got, e.Node.ActionID)
			}
			code, body = f.get(t, url.Values{"account": {account}, "supported_action_types": {"v1"}, "sort": {"asc"}, "limit": {"1000"}}.Encode())
			require.Equal(t, http.StatusOK, code, string(body))
			var rest restPage
			require.NoError(t, json.Unmarshal(body, &rest))
			var want []string
			for _, a := range rest.Actions {
				want = append(want, a.ActionID)
			}
			require.NotEmpty(t, want)
			require.Equal(t, want, got)
		})
	}
}
