package server_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// toncenter's field lists of its models JettonTransfer, JettonBurn and
// NFTTransfer (facts of its API; every key, no more).
var (
	jettonTransferFields = []string{"query_id", "source", "destination", "amount", "source_wallet", "jetton_master",
		"transaction_hash", "transaction_lt", "transaction_now", "transaction_aborted", "response_destination",
		"custom_payload", "decoded_custom_payload", "forward_ton_amount", "forward_payload", "decoded_forward_payload", "trace_id"}
	jettonBurnFields = []string{"query_id", "owner", "jetton_wallet", "jetton_master", "transaction_hash", "transaction_lt",
		"transaction_now", "transaction_aborted", "amount", "response_destination", "custom_payload", "decoded_custom_payload", "trace_id"}
	nftTransferFields = []string{"query_id", "nft_address", "nft_collection", "transaction_hash", "transaction_lt",
		"transaction_now", "transaction_aborted", "old_owner", "new_owner", "response_destination", "custom_payload",
		"decoded_custom_payload", "forward_amount", "forward_payload", "decoded_forward_payload", "trace_id"}
)

func requireFields(t *testing.T, rows []map[string]any, fields []string) {
	t.Helper()
	for _, r := range rows {
		var keys []string
		for k := range r {
			keys = append(keys, k)
		}
		require.ElementsMatch(t, fields, keys)
	}
}

// requestsOf are the transactions of the fee-replay block that took a
// request with op (not aborted), by hash: what toncenter's tables hold,
// read from the block itself.
func requestsOf(t *testing.T, op uint32) map[string]*chain.Transaction {
	t.Helper()
	p, err := ingest.ParseFile(testenv.Fixture(t, tokenfixture.ReplayBlock))
	require.NoError(t, err)
	out := map[string]*chain.Transaction{}
	for _, tx := range p.Transactions {
		if !tx.Aborted && tx.InMsg != nil && tx.InMsg.Opcode != nil && *tx.InMsg.Opcode == op {
			out[tx.Hash.Base64()] = tx
		}
	}
	return out
}

// pick is the transaction hashes of rows that keep says, in order.
func pick(rows []map[string]any, keep func(map[string]any) bool) []string {
	out := []string{}
	for _, r := range rows {
		if keep(r) {
			out = append(out, r["transaction_hash"].(string))
		}
	}
	return out
}

func moveHashes(t *testing.T, h http.Handler, path, key string) []string {
	t.Helper()
	return pick(listOf(t, h, path, key), func(map[string]any) bool { return true })
}

func ltOf(r map[string]any) uint64 {
	n, _ := strconv.ParseUint(r["transaction_lt"].(string), 10, 64)
	return n
}

// TestJettonTransfersRoute: /api/v3/jetton/transfers on the fee-replay
// block, on SQLite and Postgres: one row per transfer request the block's
// jetton wallets took (read from the block's transactions), in
// toncenter's shape, each parameter alone and combined, and 422s.
func TestJettonTransfersRoute(t *testing.T) {
	reqs := requestsOf(t, 0x0f8a7ea5)
	require.GreaterOrEqual(t, len(reqs), 5)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h, _ := tokensServer(t, db)
			all := listOf(t, h, "/api/v3/jetton/transfers?limit=1000", "jetton_transfers")
			require.Len(t, all, len(reqs))
			requireFields(t, all, jettonTransferFields)
			wallets := map[string]string{} // wallet -> master, from the registry
			for _, w := range listOf(t, h, "/api/v3/jetton/wallets?limit=1000", "jetton_wallets") {
				wallets[w["address"].(string)] = w["jetton"].(string)
			}
			for i, r := range all {
				tx := reqs[r["transaction_hash"].(string)]
				require.NotNil(t, tx, "%v is no transfer request of the block", r["transaction_hash"])
				require.Equal(t, tx.InMsg.Source, r["source"])
				require.Equal(t, tx.Account, r["source_wallet"])
				require.Equal(t, strconv.FormatUint(tx.Lt, 10), r["transaction_lt"])
				require.EqualValues(t, tx.Utime, r["transaction_now"])
				// The trace is the one the actions of the transaction name.
				acts := listOf(t, h, "/api/v3/actions?tx_hash="+url.QueryEscape(tx.Hash.Base64()), "actions")
				require.NotEmpty(t, acts)
				require.Equal(t, acts[0]["trace_id"], r["trace_id"])
				require.Equal(t, false, r["transaction_aborted"])
				require.Equal(t, wallets[tx.Account], r["jetton_master"])
				if i > 0 { // newest first by default
					require.GreaterOrEqual(t, ltOf(all[i-1]), ltOf(r))
				}
			}
			// The amount and destination are the request's, as the classifier
			// read the same message: a top-level or step JettonTransfer, or a
			// swap's incoming leg, names the same amount.
			require.NotEmpty(t, all[0]["amount"])
			require.NotEqual(t, "0", all[len(all)-1]["amount"])

			asc := moveHashes(t, h, "/api/v3/jetton/transfers?limit=1000&sort=asc", "jetton_transfers")
			desc := pick(all, func(map[string]any) bool { return true })
			require.ElementsMatch(t, desc, asc)
			for i := 1; i < len(asc); i++ {
				require.LessOrEqual(t, ltOf(find(all, asc[i-1])), ltOf(find(all, asc[i])))
			}

			one := all[len(all)/2]
			owner, dest, wallet := one["source"].(string), one["destination"].(string), one["source_wallet"].(string)
			master := one["jetton_master"].(string)
			cases := []struct {
				query string
				keep  func(map[string]any) bool
			}{
				{"owner_address=" + friendly(owner), func(r map[string]any) bool { return r["source"] == owner || r["destination"] == owner }},
				{"address=" + owner, func(r map[string]any) bool { return r["source"] == owner || r["destination"] == owner }},
				{"owner_address=" + owner + "&direction=out", func(r map[string]any) bool { return r["source"] == owner }},
				{"owner_address=" + dest + "&direction=in", func(r map[string]any) bool { return r["destination"] == dest }},
				{"owner_address=" + dest + "&direction=both", func(r map[string]any) bool { return r["source"] == dest || r["destination"] == dest }},
				{"owner_address=" + owner + "," + dest, func(r map[string]any) bool {
					return slices.Contains([]string{owner, dest}, r["source"].(string)) || slices.Contains([]string{owner, dest}, r["destination"].(string))
				}},
				{"jetton_wallet=" + friendly(wallet), func(r map[string]any) bool { return r["source_wallet"] == wallet }},
				{"jetton_master=" + friendly(master), func(r map[string]any) bool { return r["jetton_master"] == master }},
				{"jetton_master=" + master + "&owner_address=" + dest + "&direction=in", func(r map[string]any) bool {
					return r["jetton_master"] == master && r["destination"] == dest
				}},
				{"jetton_wallet=" + wallet + "&owner_address=" + owner, func(r map[string]any) bool {
					return r["source_wallet"] == wallet && (r["source"] == owner || r["destination"] == owner)
				}},
				{"start_lt=" + one["transaction_lt"].(string), func(r map[string]any) bool { return ltOf(r) >= ltOf(one) }},
				{"end_lt=" + one["transaction_lt"].(string), func(r map[string]any) bool { return ltOf(r) <= ltOf(one) }},
				{"start_lt=" + one["transaction_lt"].(string) + "&end_lt=" + one["transaction_lt"].(string),
					func(r map[string]any) bool { return ltOf(r) == ltOf(one) }},
				{"start_utime=1778681725&end_utime=1778681725", func(map[string]any) bool { return true }},
				{"start_utime=1778681726", func(map[string]any) bool { return false }},
				{"end_utime=1778681724", func(map[string]any) bool { return false }},
				{"jetton_master=" + master + "&start_utime=1778681725&start_lt=" + one["transaction_lt"].(string),
					func(r map[string]any) bool { return r["jetton_master"] == master && ltOf(r) >= ltOf(one) }},
			}
			for _, c := range cases {
				want := pick(all, c.keep)
				require.Equal(t, want, moveHashes(t, h, "/api/v3/jetton/transfers?limit=1000&"+c.query, "jetton_transfers"), c.query)
			}
			// limit and offset page through the same order.
			require.Equal(t, desc[:2], moveHashes(t, h, "/api/v3/jetton/transfers?limit=2", "jetton_transfers"))
			require.Equal(t, desc[2:4], moveHashes(t, h, "/api/v3/jetton/transfers?limit=2&offset=2", "jetton_transfers"))
			require.Equal(t, desc[:min(10, len(desc))], moveHashes(t, h, "/api/v3/jetton/transfers", "jetton_transfers"))

			// The book names every address shown; metadata the masters.
			code, body := getJSON(t, h, "/api/v3/jetton/transfers?limit=1000")
			require.Equal(t, http.StatusOK, code)
			book := body["address_book"].(map[string]any)
			for _, r := range all {
				for _, k := range []string{"source", "destination", "source_wallet", "jetton_master"} {
					require.Contains(t, book, r[k], k)
				}
			}
			// metadata has every master the registry holds among them.
			md := body["metadata"].(map[string]any)
			for _, m := range listOf(t, h, "/api/v3/jetton/masters?limit=1000", "jetton_masters") {
				if slices.ContainsFunc(all, func(r map[string]any) bool { return r["jetton_master"] == m["address"] }) {
					require.Contains(t, md, m["address"])
				}
			}

			for _, bad := range []struct{ query, param string }{
				{"owner_address=nope", "owner_address"}, {"jetton_wallet=0:12", "jetton_wallet"},
				{"jetton_master=x", "jetton_master"}, {"jetton_master=" + master + "&jetton_master=" + master, "jetton_master"},
				{"direction=sideways&owner_address=" + owner, "direction"}, {"limit=0", "limit"}, {"limit=1001", "limit"},
				{"offset=-1", "offset"}, {"offset=10001", "offset"}, {"start_lt=5&end_lt=4", "start_lt"},
				{"start_utime=9&end_utime=8", "start_utime"}, {"start_utime=abc", "start_utime"}, {"end_lt=-1", "end_lt"},
				{"start_utime=4294967296", "start_utime"}, {"sort=up", "sort"}, {"item_address=" + owner, "item_address"},
			} {
				requireBadParam(t, h, "/api/v3/jetton/transfers?"+bad.query, bad.param)
			}
		})
	}
}

func find(rows []map[string]any, hash string) map[string]any {
	for _, r := range rows {
		if r["transaction_hash"] == hash {
			return r
		}
	}
	return nil
}

// requireBadParam: path answers 422 with a message that starts with param.
func requireBadParam(t *testing.T, h http.Handler, path, param string) {
	t.Helper()
	code, body := getJSON(t, h, path)
	require.Equal(t, http.StatusUnprocessableEntity, code, "%s: %v", path, body)
	msg, _ := body["error"].(string)
	require.Regexp(t, "^"+param+"\\b", msg, path)
}

// TestJettonBurnsRoute: /api/v3/jetton/burns on the fee-replay block (a
// Tonstakers tsTON burn), on SQLite and Postgres.
func TestJettonBurnsRoute(t *testing.T) {
	reqs := requestsOf(t, 0x595f07bc)
	require.Len(t, reqs, 1)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h, _ := tokensServer(t, db)
			all := listOf(t, h, "/api/v3/jetton/burns?limit=1000", "jetton_burns")
			require.Len(t, all, 1)
			requireFields(t, all, jettonBurnFields)
			b := all[0]
			tx := reqs[b["transaction_hash"].(string)]
			require.NotNil(t, tx)
			require.Equal(t, tx.InMsg.Source, b["owner"])
			require.Equal(t, tx.Account, b["jetton_wallet"])
			const tsTON = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"
			require.Equal(t, tsTON, b["jetton_master"])
			// The StakeWithdrawal the classifier made of the same trace burnt
			// the same amount.
			wd := listOf(t, h, "/api/v3/actions?action_type=stake_withdrawal&limit=10", "actions")
			require.Len(t, wd, 1)
			require.Equal(t, wd[0]["value"].(map[string]any)["tokens_burnt"], b["amount"])

			owner, wallet := b["owner"].(string), b["jetton_wallet"].(string)
			lt := b["transaction_lt"].(string)
			other := "0:0000000000000000000000000000000000000000000000000000000000000001"
			for _, c := range []struct {
				query string
				n     int
			}{
				{"owner_address=" + friendly(owner), 1}, {"address=" + owner, 1}, {"owner_address=" + other, 0},
				{"jetton_wallet=" + wallet, 1}, {"jetton_wallet=" + other, 0}, {"jetton_master=" + friendly(tsTON), 1},
				{"jetton_master=" + other, 0}, {"jetton_master=" + tsTON + "&owner_address=" + owner + "&jetton_wallet=" + wallet, 1},
				{"jetton_master=" + tsTON + "&owner_address=" + other, 0}, {"start_lt=" + lt + "&end_lt=" + lt, 1},
				{"end_lt=" + strconv.FormatUint(tx.Lt-1, 10), 0}, {"start_utime=1778681725&sort=asc", 1},
				{"start_utime=1778681726", 0}, {"limit=1&offset=1", 0},
			} {
				got := listOf(t, h, "/api/v3/jetton/burns?"+c.query, "jetton_burns")
				require.Len(t, got, c.n, c.query)
			}
			for _, bad := range []struct{ query, param string }{
				{"owner_address=nope", "owner_address"}, {"direction=in", "direction"}, {"jetton_master=1", "jetton_master"},
				{"limit=abc", "limit"}, {"sort=sideways", "sort"}, {"offset=10001", "offset"},
			} {
				requireBadParam(t, h, "/api/v3/jetton/burns?"+bad.query, bad.param)
			}
		})
	}
}

// TestNftTransfersRoute: /api/v3/nft/transfers on SQLite and Postgres.
// The NFT transfer request of block-2 (a real item's transfer) failed, so
// it is no move (toncenter lists none for an aborted transaction); the
// route's parameters are checked on the move that request is read as when
// it is taken as a success: the same message, its aborted flag cleared.
func TestNftTransfersRoute(t *testing.T) {
	p, err := ingest.ParseFile(testenv.Fixture(t, "blocks/block-2.bin"))
	require.NoError(t, err)
	var req *chain.Transaction
	for _, tx := range p.Transactions {
		if tx.InMsg != nil && tx.InMsg.Opcode != nil && *tx.InMsg.Opcode == 0x5fcc3d14 {
			req = tx
		}
	}
	require.NotNil(t, req)
	require.True(t, req.Aborted)
	require.Empty(t, actions.TokenMoves([]*chain.Transaction{req}))
	ok := *req
	ok.Aborted = false
	moves := actions.TokenMoves([]*chain.Transaction{&ok})
	require.Len(t, moves, 1)
	m := moves[0]
	require.Equal(t, chain.MoveNftTransfer, m.Kind)
	require.Equal(t, req.InMsg.Source, m.Source)
	require.Equal(t, req.Account, m.Contract)
	require.NotEmpty(t, m.Destination)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			require.NoError(t, st.SaveBatch(context.Background(), &store.Batch{TokenMoves: moves}))
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			all := listOf(t, h, "/api/v3/nft/transfers", "nft_transfers")
			require.Len(t, all, 1)
			requireFields(t, all, nftTransferFields)
			r := all[0]
			require.Equal(t, m.Source, r["old_owner"])
			require.Equal(t, m.Destination, r["new_owner"])
			require.Equal(t, m.Contract, r["nft_address"])
			require.Equal(t, "", r["nft_collection"]) // the registry does not hold the item
			require.Equal(t, m.QueryID, r["query_id"])
			other := "0:0000000000000000000000000000000000000000000000000000000000000001"
			lt := strconv.FormatUint(m.TxLt, 10)
			for _, c := range []struct {
				query string
				n     int
			}{
				{"owner_address=" + friendly(m.Source), 1}, {"address=" + m.Source, 1}, {"owner_address=" + m.Destination, 1},
				{"owner_address=" + m.Source + "&direction=out", 1}, {"owner_address=" + m.Source + "&direction=in", 0},
				{"owner_address=" + m.Destination + "&direction=in", 1}, {"owner_address=" + other, 0},
				{"item_address=" + friendly(m.Contract), 1}, {"item_address=" + other, 0},
				{"collection_address=" + other, 0}, {"item_address=" + m.Contract + "&owner_address=" + m.Destination + "&direction=in", 1},
				{"start_lt=" + lt + "&end_lt=" + lt, 1}, {"start_lt=" + strconv.FormatUint(m.TxLt+1, 10), 0},
				{"start_utime=" + strconv.Itoa(int(m.TxUtime)) + "&end_utime=" + strconv.Itoa(int(m.TxUtime)), 1},
				{"end_utime=" + strconv.Itoa(int(m.TxUtime)-1), 0}, {"sort=asc&limit=5", 1}, {"offset=1", 0},
			} {
				got := listOf(t, h, "/api/v3/nft/transfers?"+c.query, "nft_transfers")
				require.Len(t, got, c.n, c.query)
			}
			for _, bad := range []struct{ query, param string }{
				{"item_address=zz", "item_address"}, {"collection_address=zz", "collection_address"},
				{"direction=up", "direction"}, {"jetton_wallet=" + other, "jetton_wallet"}, {"end_lt=x", "end_lt"},
			} {
				requireBadParam(t, h, "/api/v3/nft/transfers?"+bad.query, bad.param)
			}
		})
	}
}
