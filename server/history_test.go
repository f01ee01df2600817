package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// v3Tx is what the tests read of toncenter's Transaction.
type v3Tx struct {
	Account       string          `json:"account"`
	Hash          string          `json:"hash"`
	Lt            string          `json:"lt"`
	Now           int64           `json:"now"`
	PrevTransHash *string         `json:"prev_trans_hash"`
	PrevTransLt   *string         `json:"prev_trans_lt"`
	TotalFees     string          `json:"total_fees"`
	Description   json.RawMessage `json:"description"`
	InMsg         *v3Msg          `json:"in_msg"`
	OutMsgs       []v3Msg         `json:"out_msgs"`
}

type v3Msg struct {
	Hash        string  `json:"hash"`
	Source      *string `json:"source"`
	Destination *string `json:"destination"`
	CreatedAt   *string `json:"created_at"`
	InMsgTxHash *string `json:"in_msg_tx_hash"`
	OutTxHash   *string `json:"out_msg_tx_hash"`
	Content     *struct {
		Hash *string `json:"hash"`
		Body *string `json:"body"`
	} `json:"message_content"`
}

type v3Txs struct {
	Transactions []v3Tx                     `json:"transactions"`
	AddressBook  map[string]json.RawMessage `json:"address_book"`
}

// blockTx is a transaction as the block itself says, decoded here with
// tongo straight from the fixture file.
type blockTx struct {
	account, hash, prevHash string
	lt, prevLt, fees        uint64
	now                     uint32
	hasInMsg                bool
	outMsgs                 int
}

func blockTransactions(t *testing.T, path string) []blockTx {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(data)
	require.NoError(t, err)
	var blk tlb.Block
	require.NoError(t, tlb.Unmarshal(cells[0], &blk))
	var info tlb.BlockInfo
	info = blk.Info
	var out []blockTx
	for _, tx := range blk.AllTransactions() {
		id := ton.AccountID{Workchain: int32(info.Shard.WorkchainID), Address: tx.AccountAddr}
		h := tx.Hash()
		out = append(out, blockTx{account: fmt.Sprintf("%d:%X", id.Workchain, id.Address[:]), hash: base64.StdEncoding.EncodeToString(h[:]),
			prevHash: base64.StdEncoding.EncodeToString(tx.PrevTransHash[:]),
			lt:       tx.Lt, prevLt: tx.PrevTransLt, fees: uint64(tx.TotalFees.Grams), now: tx.Now,
			hasInMsg: tx.Msgs.InMsg.Exists, outMsgs: len(tx.Msgs.OutMsgs.Values())})
	}
	return out
}

func v3get(t *testing.T, h http.Handler, path string, into any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if into != nil && rec.Code == http.StatusOK {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), into), rec.Body.String())
	}
	return rec.Code
}

// TestV3TransactionsOverImportedData imports raw blocks, the fee-replay
// block and toncenter's trace JSON, then reads them through toncenter's
// v3 routes: hashes, lts, fees and previous transactions equal the
// block's own (decoded here with tongo), paging and filters select what
// they say, trace-JSON rows show null where the store holds no BOC, and
// bad or unknown parameters answer 422 naming them.
func TestV3TransactionsOverImportedData(t *testing.T) {
	dir := testenv.FixturesDir(t)
	blocks, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	files := append(append([]string{}, blocks...), traces...)
	var want []blockTx
	for _, b := range blocks {
		want = append(want, blockTransactions(t, b)...)
	}
	require.Greater(t, len(want), 100)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := importedFixtures(t, db, files)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})

			// Every block transaction by hash: the block's own values.
			byAccount := map[string][]blockTx{}
			for i, w := range want {
				byAccount[w.account] = append(byAccount[w.account], w)
				if i%7 != 0 {
					continue
				}
				var got v3Txs
				require.Equal(t, 200, v3get(t, h, "/api/v3/transactions?hash="+url.QueryEscape(w.hash), &got))
				require.Len(t, got.Transactions, 1, w.hash)
				g := got.Transactions[0]
				require.Equal(t, w.account, g.Account)
				require.Equal(t, strconv.FormatUint(w.lt, 10), g.Lt)
				require.Equal(t, strconv.FormatUint(w.fees, 10), g.TotalFees)
				require.Equal(t, int64(w.now), g.Now)
				require.NotNil(t, g.PrevTransHash)
				require.Equal(t, w.prevHash, *g.PrevTransHash)
				require.Equal(t, strconv.FormatUint(w.prevLt, 10), *g.PrevTransLt)
				require.NotEqual(t, "null", string(g.Description))
				// The messages come from the stored BOC, and the book
				// names every end of them.
				require.Equal(t, w.hasInMsg, g.InMsg != nil, w.hash)
				require.Len(t, g.OutMsgs, w.outMsgs, w.hash)
				requireBookNamesEnds(t, got.AddressBook, g)
			}

			// An account's pages, 2 at a time, newest first, are its
			// transactions in the block by lt; asc reverses them.
			var busiest string
			for a, l := range byAccount {
				if len(l) > len(byAccount[busiest]) {
					busiest = a
				}
			}
			acc := byAccount[busiest]
			require.GreaterOrEqual(t, len(acc), 3)
			sort.Slice(acc, func(i, j int) bool { return acc[i].lt > acc[j].lt })
			var paged []string
			for off := 0; ; off += 2 {
				var page v3Txs
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?account=%s&limit=2&offset=%d", busiest, off), &page))
				for _, g := range page.Transactions {
					paged = append(paged, g.Hash)
				}
				if len(page.Transactions) < 2 {
					break
				}
			}
			var wantHashes []string
			for _, w := range acc {
				wantHashes = append(wantHashes, w.hash)
			}
			require.Equal(t, wantHashes, paged)
			var asc v3Txs
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?account=%s&sort=asc&limit=1000", busiest), &asc))
			require.Len(t, asc.Transactions, len(acc))
			require.Equal(t, acc[len(acc)-1].hash, asc.Transactions[0].Hash)

			// lt and lt bounds select exactly those lts.
			mid := acc[len(acc)/2]
			var byLt v3Txs
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?account=%s&lt=%d", busiest, mid.lt), &byLt))
			require.Len(t, byLt.Transactions, 1)
			require.Equal(t, mid.hash, byLt.Transactions[0].Hash)
			var bounded v3Txs
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?account=%s&start_lt=%d&end_lt=%d&limit=1000", busiest, mid.lt, acc[0].lt), &bounded))
			require.Len(t, bounded.Transactions, len(acc)/2+1)
			var timed v3Txs
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?start_utime=%d&end_utime=%d&limit=1000", mid.now, mid.now), &timed))
			for _, g := range timed.Transactions {
				require.Equal(t, int64(mid.now), g.Now)
			}
			require.NotEmpty(t, timed.Transactions)

			// By message: a transaction's in-message finds it; the sender
			// of that message is its adjacent "in" transaction.
			var withParent *v3Tx
			for i := range paged {
				var one v3Txs
				v3get(t, h, "/api/v3/transactions?hash="+url.QueryEscape(paged[i]), &one)
				if g := one.Transactions[0]; g.InMsg != nil && g.InMsg.Source != nil {
					withParent = &g
					break
				}
			}
			if withParent == nil { // the busiest account may receive externals only; search all
				for _, w := range want {
					var one v3Txs
					v3get(t, h, "/api/v3/transactions?hash="+url.QueryEscape(w.hash), &one)
					if g := one.Transactions[0]; g.InMsg != nil && g.InMsg.Source != nil {
						var adj v3Txs
						if v3get(t, h, "/api/v3/adjacentTransactions?direction=in&hash="+url.QueryEscape(w.hash), &adj) == 200 {
							withParent = &g
							break
						}
					}
				}
			}
			require.NotNil(t, withParent)
			var byMsg v3Txs
			require.Equal(t, 200, v3get(t, h, "/api/v3/transactionsByMessage?direction=in&msg_hash="+url.QueryEscape(withParent.InMsg.Hash), &byMsg))
			require.Len(t, byMsg.Transactions, 1)
			require.Equal(t, withParent.Hash, byMsg.Transactions[0].Hash)
			var parent v3Txs
			require.Equal(t, 200, v3get(t, h, "/api/v3/adjacentTransactions?direction=in&hash="+url.QueryEscape(withParent.Hash), &parent))
			require.Len(t, parent.Transactions, 1)
			p := parent.Transactions[0]
			require.Equal(t, *withParent.InMsg.Source, p.Account)
			found := false
			for _, m := range p.OutMsgs {
				found = found || m.Hash == withParent.InMsg.Hash
			}
			require.True(t, found, "the parent sent the message")
			var children v3Txs
			require.Equal(t, 200, v3get(t, h, "/api/v3/adjacentTransactions?direction=out&hash="+url.QueryEscape(p.Hash), &children))
			require.Contains(t, hashesOf(children), withParent.Hash)

			// /messages: the message, once, with both of its transactions.
			var msgs struct {
				Messages []v3Msg `json:"messages"`
			}
			require.Equal(t, 200, v3get(t, h, "/api/v3/messages?msg_hash="+url.QueryEscape(withParent.InMsg.Hash), &msgs))
			require.Len(t, msgs.Messages, 1)
			m := msgs.Messages[0]
			require.Equal(t, withParent.Hash, *m.InMsgTxHash)
			require.Equal(t, p.Hash, *m.OutTxHash)
			require.NotNil(t, m.CreatedAt, "the BOC holds created_at")

			// body_hash (as hex here: any hash form) selects the messages
			// with that body, and the transactions that hold one.
			require.NotNil(t, m.Content.Hash)
			bh, err := chain.ParseHash(*m.Content.Hash)
			require.NoError(t, err)
			var byBody struct {
				Messages []v3Msg `json:"messages"`
			}
			require.Equal(t, 200, v3get(t, h, "/api/v3/messages?limit=1000&body_hash="+bh.Hex(), &byBody))
			require.NotEmpty(t, byBody.Messages)
			seen := false
			for _, o := range byBody.Messages {
				require.Equal(t, *m.Content.Hash, *o.Content.Hash)
				seen = seen || o.Hash == m.Hash
			}
			require.True(t, seen, "the message is among those with its body")
			var txByBody v3Txs
			require.Equal(t, 200, v3get(t, h, "/api/v3/transactionsByMessage?limit=1000&direction=in&body_hash="+bh.Hex(), &txByBody))
			require.Contains(t, hashesOf(txByBody), withParent.Hash)

			// start_utime/end_utime select by the header's created_at and
			// order by it; the message is in its own second.
			var byTime struct {
				Messages []v3Msg `json:"messages"`
			}
			at := *m.CreatedAt
			require.Equal(t, 200, v3get(t, h, "/api/v3/messages?limit=1000&sort=asc&start_utime="+at+"&end_utime="+at, &byTime))
			seen = false
			for _, o := range byTime.Messages {
				require.NotNil(t, o.CreatedAt)
				require.Equal(t, at, *o.CreatedAt)
				seen = seen || o.Hash == m.Hash
			}
			require.True(t, seen, "the message is in its creation second")
			var fromTime struct {
				Messages []v3Msg `json:"messages"`
			}
			require.Equal(t, 200, v3get(t, h, "/api/v3/messages?limit=200&sort=desc&end_utime="+at, &fromTime))
			require.NotEmpty(t, fromTime.Messages)
			for i, o := range fromTime.Messages {
				require.NotNil(t, o.CreatedAt, "an external inbound message has no time: no bound selects it")
				n, _ := strconv.ParseUint(*o.CreatedAt, 10, 32)
				top, _ := strconv.ParseUint(at, 10, 32)
				require.LessOrEqual(t, n, top)
				if i > 0 {
					prev, _ := strconv.ParseUint(*fromTime.Messages[i-1].CreatedAt, 10, 32)
					require.GreaterOrEqual(t, prev, n, "ordered by created_at, descending")
				}
			}

			// /traces by a transaction of it: the trace holds the
			// transaction and its parent, in lt order, with the parent's
			// node above it; /events is the same list under "events".
			var tr v3Traces
			require.Equal(t, 200, v3get(t, h, "/api/v3/traces?tx_hash="+url.QueryEscape(withParent.Hash), &tr))
			require.Len(t, tr.Traces, 1)
			one := tr.Traces[0]
			require.Contains(t, one.Transactions, withParent.Hash)
			require.Contains(t, one.Transactions, p.Hash)
			require.Len(t, one.TransactionsOrder, len(one.Transactions))
			for i := 1; i < len(one.TransactionsOrder); i++ {
				a, _ := strconv.ParseUint(one.Transactions[one.TransactionsOrder[i-1]].Lt, 10, 64)
				b, _ := strconv.ParseUint(one.Transactions[one.TransactionsOrder[i]].Lt, 10, 64)
				require.LessOrEqual(t, a, b)
			}
			require.Equal(t, p.Hash, parentIn(one.Trace, withParent.Hash), "the tree puts the sender above")
			require.Equal(t, len(one.Transactions), countNodes(one.Trace))
			for _, tx := range one.Transactions {
				requireBookNamesEnds(t, tr.AddressBook, tx)
			}
			var ev struct {
				Events []v3Trace `json:"events"`
			}
			require.Equal(t, 200, v3get(t, h, "/api/v3/events?tx_hash="+url.QueryEscape(withParent.Hash), &ev))
			require.Len(t, ev.Events, 1)
			require.Equal(t, one.TraceID, ev.Events[0].TraceID)
			var byAcc v3Traces
			require.Equal(t, 200, v3get(t, h, "/api/v3/traces?limit=1000&account="+withParent.Account, &byAcc))
			var ids []string
			for _, x := range byAcc.Traces {
				ids = append(ids, x.TraceID)
				inTrace := false
				for _, tx := range x.Transactions {
					inTrace = inTrace || tx.Account == withParent.Account
				}
				require.True(t, inTrace, "every trace listed has a transaction of the account")
			}
			require.Contains(t, ids, one.TraceID)
			var byID v3Traces
			require.Equal(t, 200, v3get(t, h, "/api/v3/traces?trace_id="+url.QueryEscape(one.TraceID), &byID))
			require.Len(t, byID.Traces, 1)
			require.Equal(t, one.TransactionsOrder, byID.Traces[0].TransactionsOrder)

			checkTransactionsRESTEqualsGraphQL(t, h, busiest, withParent)

			// A row imported from trace JSON holds no BOC: what it lacks is null.
			var fromJSON v3Txs
			tracesOnly := traceJSONAccount(t, traces[0])
			require.Equal(t, 200, v3get(t, h, "/api/v3/transactions?limit=1&account="+tracesOnly, &fromJSON))
			require.Len(t, fromJSON.Transactions, 1)
			require.Nil(t, fromJSON.Transactions[0].PrevTransHash)
			require.Equal(t, "null", string(fromJSON.Transactions[0].Description))

			// The address book keys addresses as given.
			friendly := ton.MustParseAccountID(busiest).ToHuman(true, false)
			var book map[string]struct {
				UserFriendly string `json:"user_friendly"`
			}
			require.Equal(t, 200, v3get(t, h, "/api/v3/addressBook?address="+friendly+"&address="+busiest, &book))
			require.Len(t, book, 2)
			require.Equal(t, book[busiest].UserFriendly, book[friendly].UserFriendly)

			for path, field := range map[string]string{
				"/api/v3/transactions?acount=" + busiest:                                             "acount",
				"/api/v3/transactions?hash=xyz":                                                      "hash",
				"/api/v3/transactions?limit=0":                                                       "limit",
				"/api/v3/transactions?limit=1001":                                                    "limit",
				"/api/v3/transactions?offset=-1":                                                     "offset",
				"/api/v3/transactions?sort=up":                                                       "sort",
				"/api/v3/transactions?account=nope":                                                  "account",
				"/api/v3/transactions?start_lt=-5":                                                   "start_lt",
				"/api/v3/transactionsByMessage?direction=in":                                         "msg_hash",
				"/api/v3/transactionsByMessage?opcode=zz":                                            "opcode",
				"/api/v3/transactionsByMessage?body_hash=abc":                                        "body_hash",
				"/api/v3/adjacentTransactions":                                                       "hash",
				"/api/v3/adjacentTransactions?hash=" + busiest:                                       "hash",
				"/api/v3/messages?direction=sideways":                                                "direction",
				"/api/v3/messages?only_externals=maybe":                                              "only_externals",
				"/api/v3/messages?start_utime=-1":                                                    "start_utime",
				"/api/v3/messages?end_utime=yesterday":                                               "end_utime",
				"/api/v3/addressBook":                                                                "address",
				"/api/v3/addressBook?address=0:12":                                                   "address",
				"/api/v3/messages?msg_hash=" + withParent.Hash + "&x=1":                              "x",
				"/api/v3/traces?include_actions=maybe":                                               "include_actions",
				"/api/v3/traces?account=" + busiest + "&tx_hash=" + url.QueryEscape(withParent.Hash): "account",
				"/api/v3/events?trace_id=nothash":                                                    "trace_id",
			} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, path)
				require.Contains(t, rec.Body.String(), field, path)
			}
			// api_key is accepted and ignored.
			require.Equal(t, 200, v3get(t, h, "/api/v3/transactions?limit=1&api_key=anything", nil))
		})
	}
}

type v3Trace struct {
	TraceID           string          `json:"trace_id"`
	TransactionsOrder []string        `json:"transactions_order"`
	Transactions      map[string]v3Tx `json:"transactions"`
	Trace             *v3Node         `json:"trace"`
}

type v3Node struct {
	TxHash   string    `json:"tx_hash"`
	Children []*v3Node `json:"children"`
}

type v3Traces struct {
	Traces      []v3Trace                  `json:"traces"`
	AddressBook map[string]json.RawMessage `json:"address_book"`
}

// requireBookNamesEnds checks that the address book names the
// transaction's account, its in-message's source and its out-messages'
// destinations, as toncenter's does.
func requireBookNamesEnds(t *testing.T, book map[string]json.RawMessage, tx v3Tx) {
	t.Helper()
	require.Contains(t, book, tx.Account)
	if tx.InMsg != nil && tx.InMsg.Source != nil {
		require.Contains(t, book, *tx.InMsg.Source, tx.Hash)
	}
	for _, m := range tx.OutMsgs {
		if m.Destination != nil {
			require.Contains(t, book, *m.Destination, tx.Hash)
		}
	}
}

// parentIn is the hash of the node above the transaction hash.
func parentIn(n *v3Node, hash string) string {
	for _, c := range n.Children {
		if c.TxHash == hash {
			return n.TxHash
		}
		if p := parentIn(c, hash); p != "" {
			return p
		}
	}
	return ""
}

func countNodes(n *v3Node) int {
	if n == nil {
		return 0
	}
	c := 1
	for _, k := range n.Children {
		c += countNodes(k)
	}
	return c
}

func hashesOf(p v3Txs) []string {
	var out []string
	for _, t := range p.Transactions {
		out = append(out, t.Hash)
	}
	return out
}

// traceJSONAccount is the account of a trace file's first transaction.
func traceJSONAccount(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Transactions []struct {
			Account string `json:"account"`
		} `json:"transactions"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	for _, tx := range doc.Transactions {
		return tx.Account
	}
	t.Fatal("no transaction in " + path)
	return ""
}

// checkTransactionsRESTEqualsGraphQL: GraphQL's transactions, transaction,
// messages, message and Account.transactions return the rows the v3
// routes return for the same filters, in the same order.
func checkTransactionsRESTEqualsGraphQL(t *testing.T, h http.Handler, account string, tx *v3Tx) {
	t.Helper()
	f := &fixture{h: h}
	type gqlTx struct {
		Hash      string `json:"hash"`
		Lt        uint64 `json:"lt"`
		Now       uint32 `json:"now"`
		TotalFees uint64 `json:"total_fees"`
		Account   string `json:"account_address"`
	}
	for _, q := range []struct{ rest, filter string }{
		{"account=" + account + "&limit=1000", `{account: ["` + account + `"]}`},
		{"account=" + account + "&limit=3&offset=2&sort=asc", `{account: ["` + account + `"]}, limit: 3, offset: 2, sort: asc`},
		{"hash=" + url.QueryEscape(tx.Hash), `{hash: ["` + tx.Hash + `"]}`},
		{"limit=50&start_lt=" + tx.Lt, `{start_lt: ` + tx.Lt + `}, limit: 50`},
	} {
		var rest v3Txs
		require.Equal(t, 200, v3get(t, h, "/api/v3/transactions?"+q.rest, &rest))
		filter := q.filter
		if !strings.Contains(filter, "limit") {
			filter += ", limit: 1000"
		}
		if strings.HasPrefix(q.rest, "limit=50") {
			filter = q.filter
		}
		var gql struct {
			Data struct {
				Transactions []gqlTx `json:"transactions"`
			}
		}
		require.NoError(t, json.Unmarshal(f.graphql(t, `{ transactions(filter: `+filter+`) { hash lt now total_fees account_address } }`, nil), &gql))
		require.Len(t, gql.Data.Transactions, len(rest.Transactions), q.rest)
		require.NotEmpty(t, rest.Transactions, q.rest)
		for i, g := range gql.Data.Transactions {
			r := rest.Transactions[i]
			require.Equal(t, r.Hash, g.Hash)
			require.Equal(t, r.Lt, strconv.FormatUint(g.Lt, 10))
			require.Equal(t, r.TotalFees, strconv.FormatUint(g.TotalFees, 10))
			require.Equal(t, r.Now, int64(g.Now))
			require.Equal(t, r.Account, g.Account)
		}
	}

	// One transaction and one message by hash; an unknown hash is null.
	var one struct {
		Data struct {
			Transaction *gqlTx `json:"transaction"`
			Missing     *gqlTx `json:"missing"`
			Message     *struct {
				Hash   string  `json:"hash"`
				Source *string `json:"source"`
			} `json:"message"`
		}
	}
	require.NoError(t, json.Unmarshal(f.graphql(t, `{ transaction(hash: "`+tx.Hash+`") { hash lt now total_fees account_address }
		missing: transaction(hash: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=") { hash }
		message(hash: "`+tx.InMsg.Hash+`") { hash source } }`, nil), &one))
	require.Equal(t, tx.Hash, one.Data.Transaction.Hash)
	require.Nil(t, one.Data.Missing)
	require.Equal(t, tx.InMsg.Hash, one.Data.Message.Hash)
	require.Equal(t, *tx.InMsg.Source, *one.Data.Message.Source)

	// messages: the same list as /api/v3/messages.
	var restMsgs struct {
		Messages []v3Msg `json:"messages"`
	}
	require.Equal(t, 200, v3get(t, h, "/api/v3/messages?limit=40&source="+*tx.InMsg.Source, &restMsgs))
	var gqlMsgs struct {
		Data struct {
			Messages []struct {
				Hash string `json:"hash"`
			} `json:"messages"`
		}
	}
	require.NoError(t, json.Unmarshal(f.graphql(t, `{ messages(filter: {source: "`+*tx.InMsg.Source+`"}, limit: 40) { hash } }`, nil), &gqlMsgs))
	require.NotEmpty(t, restMsgs.Messages)
	require.Len(t, gqlMsgs.Data.Messages, len(restMsgs.Messages))
	for i, m := range gqlMsgs.Data.Messages {
		require.Equal(t, restMsgs.Messages[i].Hash, m.Hash)
	}
	// the same with a time bound (ordered by created_at then)
	at := *restMsgs.Messages[0].CreatedAt
	require.Equal(t, 200, v3get(t, h, "/api/v3/messages?limit=40&source="+*tx.InMsg.Source+"&end_utime="+at, &restMsgs))
	require.NoError(t, json.Unmarshal(f.graphql(t, `{ messages(filter: {source: "`+*tx.InMsg.Source+`", end_utime: `+at+`}, limit: 40) { hash } }`, nil), &gqlMsgs))
	require.NotEmpty(t, restMsgs.Messages)
	require.Len(t, gqlMsgs.Data.Messages, len(restMsgs.Messages))
	for i, m := range gqlMsgs.Data.Messages {
		require.Equal(t, restMsgs.Messages[i].Hash, m.Hash)
	}

	// Account.transactions by cursor, 2 a page: the REST list in order.
	var all v3Txs
	require.Equal(t, 200, v3get(t, h, "/api/v3/transactions?limit=1000&account="+account, &all))
	var paged []string
	after := ""
	for pages := 0; pages < 1000; pages++ {
		arg := ""
		if after != "" {
			arg = `, after: "` + after + `"`
		}
		var conn struct {
			Data struct {
				Account struct {
					Transactions struct {
						Edges []struct {
							Node struct {
								Hash string `json:"hash"`
							} `json:"node"`
						} `json:"edges"`
						PageInfo struct {
							HasNextPage bool    `json:"hasNextPage"`
							EndCursor   *string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"transactions"`
				} `json:"account"`
			}
		}
		require.NoError(t, json.Unmarshal(f.graphql(t, `{ account(address: "`+account+`") { transactions(first: 2`+arg+`) { edges { node { hash } } pageInfo { hasNextPage endCursor } } } }`, nil), &conn))
		c := conn.Data.Account.Transactions
		for _, e := range c.Edges {
			paged = append(paged, e.Node.Hash)
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		after = *c.PageInfo.EndCursor
	}
	require.Equal(t, hashesOf(all), paged)
}

// A GraphQL page of transactions reads their messages only when it
// selects in_msg or out_msgs, on Query.transactions and on the
// Account.transactions connection; the messages it shows are those of
// the REST page (decoded from the BOCs there).
func TestGraphQLTransactionsReadMessagesOnlyWhenSelected(t *testing.T) {
	dir := testenv.FixturesDir(t)
	blocks, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := importedFixtures(t, db, blocks)
			var account string
			require.NoError(t, st.DB().NewRaw(`SELECT account FROM transactions GROUP BY account ORDER BY count(*) DESC, account LIMIT 1`).
				Scan(context.Background(), &account))
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			f := &fixture{h: h}
			// The REST page's messages, per transaction.
			var rest v3Txs
			require.Equal(t, 200, v3get(t, h, "/api/v3/transactions?limit=5&account="+account, &rest))
			require.Len(t, rest.Transactions, 5)
			want := map[string][]string{}
			for _, tx := range rest.Transactions {
				want[tx.Hash] = msgHashes(tx)
			}
			const marker = `FROM "messages"`
			c := &statementCounter{counts: map[string]int{}, markers: []string{marker}}
			st.ObserveStatements(c.observe)
			for _, q := range []struct {
				query    string
				messages bool
			}{
				{`{ transactions(filter: {account: ["%s"]}, limit: 5) { hash lt } }`, false},
				{`{ transactions(filter: {account: ["%s"]}, limit: 5) { hash in_msg { hash } out_msgs { hash } } }`, true},
				{`{ account(address: "%s") { transactions(first: 5) { edges { cursor node { hash lt } } } } }`, false},
				{`{ account(address: "%s") { transactions(first: 5) { edges { node { hash in_msg { hash } out_msgs { hash } } } } } }`, true},
			} {
				c.mu.Lock()
				c.counts[marker] = 0
				c.mu.Unlock()
				raw := f.graphql(t, fmt.Sprintf(q.query, account), nil)
				require.NotContains(t, string(raw), `"errors"`, q.query)
				c.mu.Lock()
				reads := c.counts[marker]
				c.mu.Unlock()
				if !q.messages {
					require.Zero(t, reads, q.query)
					continue
				}
				require.Equal(t, 1, reads, q.query)
				var got struct {
					Data struct {
						Transactions []v3Tx `json:"transactions"`
						Account      struct {
							Transactions struct {
								Edges []struct {
									Node v3Tx `json:"node"`
								} `json:"edges"`
							} `json:"transactions"`
						} `json:"account"`
					} `json:"data"`
				}
				require.NoError(t, json.Unmarshal(raw, &got))
				txs := got.Data.Transactions
				for _, e := range got.Data.Account.Transactions.Edges {
					txs = append(txs, e.Node)
				}
				require.Len(t, txs, 5, q.query)
				for _, tx := range txs {
					require.Equal(t, want[tx.Hash], msgHashes(tx), q.query)
				}
			}
		})
	}
}

// msgHashes are the hashes of a transaction's in-message and
// out-messages, in order.
func msgHashes(tx v3Tx) []string {
	var out []string
	if tx.InMsg != nil {
		out = append(out, "in "+tx.InMsg.Hash)
	}
	for _, m := range tx.OutMsgs {
		out = append(out, "out "+m.Hash)
	}
	return out
}
