package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// pendingTracesOf reads /api/v3/pendingTraces?query (200 expected).
func pendingTracesOf(t *testing.T, h http.Handler, query string) []map[string]any {
	t.Helper()
	return listOf(t, h, "/api/v3/pendingTraces?"+query, "traces")
}

// A real external message of the fee-replay block, sent through sendBoc
// into a store that does not hold that block (the estimator reads the
// states before it), is kept as a pending trace: /api/v3/pendingTraces and
// /api/v3/pendingActions answer it by account and by its hash, with
// transactions equal to the chain's own (hashes, fees, state after) and
// actions marked pending; once the block's real trace is imported it is
// gone from them and /api/v3/traces answers it; a trace whose time ran
// out is gone too.
func TestPendingTracesOfSentMessage(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			replay := importFeeReplay(t, db)
			msg := replay.msgs[0]
			req, err := fees.ParseParams(fees.Params{Boc: msg.Message})
			require.NoError(t, err)
			hash, norm, err := req.MessageHashes()
			require.NoError(t, err)
			account := chain.RawAddress(msg.Account)

			st := storetest.Open(t, sameKind(t, db)) // the block is not in it yet
			var clock atomic.Int64
			clock.Store(replay.now.UnixNano())
			res := &resolvers.Resolver{Store: st, Lite: &acceptingLite{}, PendingTimeout: time.Minute,
				Fees: fees.New(replay.st, nil, fees.Options{Now: func() time.Time { return replay.now }}),
				Now:  func() time.Time { return time.Unix(0, clock.Load()) }}
			h := newServer(t, server.Options{Resolver: res})

			send := func() {
				rec := doRequest(h, http.MethodPost, "/api/v2/sendBoc", fmt.Sprintf(`{"boc":%q}`, msg.Message))
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			}
			byAccount := "account=" + url.QueryEscape(account)
			send()
			var traces []map[string]any
			require.Eventually(t, func() bool {
				traces = pendingTracesOf(t, h, byAccount)
				return len(traces) == 1
			}, time.Minute, 20*time.Millisecond, "the sent message's trace is kept as pending")
			tr := traces[0]
			require.Equal(t, hash.Base64(), tr["external_hash"])
			require.Equal(t, "pending", tr["trace_info"].(map[string]any)["trace_state"])
			txs := tr["transactions"].(map[string]any)
			require.NotEmpty(t, txs)
			for _, raw := range txs {
				tx := raw.(map[string]any)
				require.Equal(t, true, tx["emulated"])
				require.Equal(t, "pending", tx["finality"])
				require.Equal(t, hash.Base64(), tx["trace_external_hash"])
			}
			acts := tr["actions"].([]any)
			require.NotEmpty(t, acts)
			for _, raw := range acts {
				a := raw.(map[string]any)
				require.Equal(t, "pending", a["finality"])
				require.Equal(t, hash.Base64(), a["trace_external_hash"])
				require.Equal(t, norm.Base64(), a["trace_external_hash_norm"])
			}

			// The same trace by its hash (hex too), by its normalized hash,
			// and by both filters at once; a filter it fails is an empty list.
			for _, q := range []string{
				"ext_msg_hash=" + url.QueryEscape(hash.Base64()),
				"ext_msg_hash=" + hash.Hex(),
				"ext_msg_hash=" + url.QueryEscape(norm.Base64()),
				byAccount + "&ext_msg_hash=" + url.QueryEscape(hash.Base64()),
				"ext_msg_hash=" + url.QueryEscape(chain.Hash{1}.Base64()) + "&ext_msg_hash=" + url.QueryEscape(hash.Base64()),
			} {
				got := pendingTracesOf(t, h, q)
				require.Len(t, got, 1, q)
				require.Equal(t, tr["trace_id"], got[0]["trace_id"], q)
			}
			other := chain.RawAddress(replay.msgs[len(replay.msgs)-1].Account)
			require.NotEqual(t, account, other)
			for _, q := range []string{
				"ext_msg_hash=" + url.QueryEscape(chain.Hash{1}.Base64()),
				"account=" + url.QueryEscape(other),
				"account=" + url.QueryEscape(other) + "&ext_msg_hash=" + url.QueryEscape(hash.Base64()),
				byAccount + "&ext_msg_hash=" + url.QueryEscape(chain.Hash{1}.Base64()),
				byAccount + "&supported_action_types=v1",
			} {
				got := pendingTracesOf(t, h, q)
				if q == byAccount+"&supported_action_types=v1" {
					// the oldest action set: the trace stays, its newer actions go
					require.Len(t, got, 1, q)
					continue
				}
				require.Empty(t, got, q)
			}

			// Its transactions: by account, that account's own; by trace id,
			// all of them; both, both must hold; newest first, each once.
			byTrace := "trace_id=" + url.QueryEscape(tr["trace_id"].(string))
			require.Positive(t, txsByAccount(txs)[account])
			for q, want := range map[string]int{
				byAccount:                 txsByAccount(txs)[account],
				byTrace:                   len(txs),
				byTrace + "&" + byAccount: txsByAccount(txs)[account],
				byAccount + "&account=" + url.QueryEscape(other):      txsByAccount(txs)[account] + txsByAccount(txs)[other],
				"account=" + url.QueryEscape(other) + "&" + byTrace:   txsByAccount(txs)[other],
				"trace_id=" + url.QueryEscape(chain.Hash{1}.Base64()): 0,
			} {
				got := listOf(t, h, "/api/v3/pendingTransactions?"+q, "transactions")
				require.Len(t, got, want, q)
				var prev uint64 = math.MaxUint64
				for _, tx := range got {
					require.Contains(t, txs, tx["hash"], q)
					require.Equal(t, txs[tx["hash"].(string)], map[string]any(tx), q)
					if strings.Contains(q, "account=") && !strings.Contains(q, url.QueryEscape(other)) {
						require.Equal(t, account, tx["account"], q)
					}
					lt, err := strconv.ParseUint(tx["lt"].(string), 10, 64)
					require.NoError(t, err)
					require.Less(t, lt, prev, "newest first, each once: %s", q)
					prev = lt
				}
			}
			require.Equal(t, listOf(t, h, "/api/v3/pendingTransactions?"+byTrace, "transactions"),
				listOf(t, h, "/toncenter/api/v3/pendingTransactions?"+byTrace, "transactions"))

			// Its actions: ours at /api/v3/pendingActions, toncenter's (with
			// their transactions when asked) below the dialect's prefix.
			own := listOf(t, h, "/api/v3/pendingActions?"+byAccount, "actions")
			require.Len(t, own, len(acts))
			for i, a := range own {
				require.Equal(t, acts[i].(map[string]any)["action_id"], a["action_id"])
				require.Equal(t, norm.Base64(), a["trace_external_hash_norm"])
				require.NotContains(t, a, "finality")
			}
			tc := listOf(t, h, "/toncenter/api/v3/pendingActions?include_transactions=true&ext_msg_hash="+url.QueryEscape(hash.Base64()), "actions")
			require.Len(t, tc, len(acts))
			for _, a := range tc {
				require.Equal(t, "pending", a["finality"])
				full := a["transactions_full"].([]any)
				require.Len(t, full, len(a["transactions"].([]any)))
				for _, x := range full {
					require.Contains(t, txs, x.(map[string]any)["hash"])
				}
			}
			require.Empty(t, listOf(t, h, "/api/v3/pendingActions?account="+url.QueryEscape(other), "actions"))

			// The block's real trace stored: the pending one is gone, and the
			// chain ran the same transactions: as many, on the same accounts.
			// Not the same hashes (the emulation cannot know the lt and time
			// its block gives them) nor quite the same fees: storage fees
			// follow the clock, which here is the test's, not the block's
			// (fees at the block's own time equal the chain's:
			// TestPreviewFeesEqualChain).
			_, err = ingest.New(st).ImportFile(context.Background(), testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
			require.NoError(t, err)
			require.Empty(t, pendingTracesOf(t, h, byAccount))
			require.Empty(t, listOf(t, h, "/api/v3/pendingActions?ext_msg_hash="+url.QueryEscape(hash.Base64()), "actions"))
			require.Empty(t, listOf(t, h, "/api/v3/pendingTransactions?"+byAccount, "transactions"))
			real := listOf(t, h, "/api/v3/traces?include_actions=true&msg_hash="+url.QueryEscape(hash.Base64()), "traces")
			require.Len(t, real, 1)
			require.Equal(t, txsByAccount(txs), txsByAccount(real[0]["transactions"].(map[string]any)))
			for _, raw := range real[0]["actions"].([]any) {
				a := raw.(map[string]any)
				require.Equal(t, "finalized", a["finality"])
				require.Equal(t, hash.Base64(), a["trace_external_hash"], "stored at import")
			}

			// Expiry: a message sent again (its trace is stored, but this
			// store keeps what it is told) is gone once its time is up.
			exp := storetest.Open(t, sameKind(t, db))
			h2 := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: exp, Lite: res.Lite, Fees: res.Fees,
				PendingTimeout: res.PendingTimeout, Now: res.Now}})
			rec := doRequest(h2, http.MethodPost, "/api/v2/sendBoc", fmt.Sprintf(`{"boc":%q}`, msg.Message))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			require.Eventually(t, func() bool { return len(pendingTracesOf(t, h2, byAccount)) == 1 }, time.Minute, 20*time.Millisecond)
			clock.Add(int64(time.Minute))
			require.Empty(t, pendingTracesOf(t, h2, byAccount))
			require.Empty(t, listOf(t, h2, "/toncenter/api/v3/pendingActions?"+byAccount, "actions"))
		})
	}
}

// Bad or unknown parameters of the pending routes are 422 naming them.
func TestPendingTracesRefuseBadParameters(t *testing.T) {
	db := testenv.Databases(t)[0]
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: storetest.Open(t, db.URL)}})
	for _, path := range []string{"/api/v3/pendingTraces", "/api/v3/pendingActions", "/toncenter/api/v3/pendingActions", "/toncenter/api/v3/pendingTraces"} {
		for q, field := range map[string]string{
			"":                     "account",
			"account=nope":         "account",
			"ext_msg_hash=xyz":     "ext_msg_hash",
			"account=0:00&limit=5": "limit",
			"ext_msg_hash=" + chain.Hash{}.Hex() + "&sort=asc":                                    "sort",
			"account=" + url.QueryEscape("0:"+chain.Hash{}.Hex()) + "&supported_action_types=v99": "supported_action_types",
			"account=" + url.QueryEscape("0:"+chain.Hash{}.Hex()) + "&include_transactions=maybe": "include_transactions",
		} {
			rec := doRequest(h, http.MethodGet, path+"?"+q, "")
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s?%s: %s", path, q, rec.Body.String())
			require.Contains(t, rec.Body.String(), field, "%s?%s", path, q)
		}
	}
	for _, path := range []string{"/api/v3/pendingTransactions", "/toncenter/api/v3/pendingTransactions"} {
		for q, field := range map[string]string{
			"":                     "account",
			"account=nope":         "account",
			"trace_id=xyz":         "trace_id",
			"account=0:00&limit=5": "limit",
			"trace_id=" + chain.Hash{}.Hex() + "&ext_msg_hash=" + chain.Hash{}.Hex(): "ext_msg_hash",
		} {
			rec := doRequest(h, http.MethodGet, path+"?"+q, "")
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s?%s: %s", path, q, rec.Body.String())
			require.Contains(t, rec.Body.String(), field, "%s?%s", path, q)
		}
	}
	rec := doRequest(h, http.MethodGet, "/api/v3/pendingActions?include_transactions=true&account="+url.QueryEscape("0:"+chain.Hash{}.Hex()), "")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Contains(t, rec.Body.String(), "include_transactions")
}

// txsByAccount counts a trace's transactions (toncenter's map by hash) by
// account.
func txsByAccount(txs map[string]any) map[string]int {
	out := map[string]int{}
	for _, raw := range txs {
		out[raw.(map[string]any)["account"].(string)]++
	}
	return out
}
