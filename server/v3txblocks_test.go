package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// v3BlockTx is a transaction with the block toncenter says holds it.
type v3BlockTx struct {
	Hash     string `json:"hash"`
	Account  string `json:"account"`
	Lt       string `json:"lt"`
	McSeqno  *int64 `json:"mc_block_seqno"`
	BlockRef *struct {
		Workchain int32  `json:"workchain"`
		Shard     string `json:"shard"`
		Seqno     uint32 `json:"seqno"`
	} `json:"block_ref"`
}

type v3BlockTxs struct {
	Transactions []v3BlockTx `json:"transactions"`
}

func (l v3BlockTxs) hashes() []string {
	out := make([]string, len(l.Transactions))
	for i, tx := range l.Transactions {
		out[i] = tx.Hash
	}
	return out
}

// TestV3TransactionsByBlock imports the raw block files, the fee-replay
// block (a shard block whose masterchain block the file names) and a
// toncenter trace file, on SQLite and Postgres, and reads transactions by
// the block that holds them: each block's transactions (decoded here with
// tongo) by workchain+shard+seqno, each filter alone and with others,
// block_ref on every block transaction and null on a trace-JSON one,
// /transactionsByMasterchainBlock equal to mc_seqno's list,
// /masterchainBlockShardState, GraphQL equal to REST, and 422s.
func TestV3TransactionsByBlock(t *testing.T) {
	dir := testenv.FixturesDir(t)
	blockFiles, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	if len(blockFiles) == 0 {
		t.Skip("no block fixtures")
	}
	want := readFileBlocks(t)
	// The block files in readFileBlocks' order (the same glob), with the
	// hashes of their transactions as the block holds them.
	txsOf := map[string][]string{} // "wc shard seqno" -> hashes
	accountOf := map[string]string{}
	for i, f := range blockFiles {
		b := want[i]
		for _, tx := range blockTransactions(t, f) {
			k := fmt.Sprint(b.workchain, " ", b.shard, " ", b.seqno)
			txsOf[k] = append(txsOf[k], tx.hash)
			accountOf[tx.hash] = tx.account
		}
	}
	traceFiles, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, traceFiles)
	const replayMc = 66519406 // the masterchain block the fee-replay file names
	files := append(append([]string{}, blockFiles...), testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"), traceFiles[0])

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := importedFixtures(t, db, files)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})

			perWorkchain := map[int32]int{}
			perSeqno := map[uint32]int{}
			perShard := map[string]int{}
			for _, b := range want {
				k := fmt.Sprint(b.workchain, " ", b.shard, " ", b.seqno)
				var got v3BlockTxs
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?workchain=%d&shard=%s&seqno=%d&limit=1000&sort=asc",
					b.workchain, b.shard, b.seqno), &got))
				require.ElementsMatch(t, txsOf[k], got.hashes(), k)
				require.Len(t, got.Transactions, b.txCount)
				for i, tx := range got.Transactions {
					require.NotNil(t, tx.BlockRef, tx.Hash)
					require.Equal(t, b.workchain, tx.BlockRef.Workchain)
					require.Equal(t, b.shard, tx.BlockRef.Shard)
					require.Equal(t, b.seqno, tx.BlockRef.Seqno)
					if i > 0 { // by lt, as toncenter orders them
						a, _ := strconv.ParseUint(got.Transactions[i-1].Lt, 10, 64)
						c, _ := strconv.ParseUint(tx.Lt, 10, 64)
						require.LessOrEqual(t, a, c)
					}
				}
				perWorkchain[b.workchain] += b.txCount
				perSeqno[b.seqno] += b.txCount
				perShard[fmt.Sprint(b.workchain, b.shard)] += b.txCount
				if b.txCount == 0 {
					continue
				}
				// The shard in signed decimal selects the same; with an
				// account of the block, that account's transactions in it.
				u, _ := strconv.ParseUint(b.shard, 16, 64)
				var dec v3BlockTxs
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?workchain=%d&shard=%d&seqno=%d&limit=1000&sort=asc",
					b.workchain, int64(u), b.seqno), &dec))
				require.Equal(t, got.hashes(), dec.hashes())
				acc := got.Transactions[0].Account
				var mine v3BlockTxs
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?account=%s&seqno=%d&limit=1000", acc, b.seqno), &mine))
				require.NotEmpty(t, mine.Transactions)
				for _, tx := range mine.Transactions {
					require.Equal(t, acc, tx.Account)
					require.Equal(t, b.seqno, tx.BlockRef.Seqno)
				}
				// lt bounds narrow a block's list to its first transaction.
				var first v3BlockTxs
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?seqno=%d&workchain=%d&end_lt=%s&limit=1000",
					b.seqno, b.workchain, got.Transactions[0].Lt), &first))
				require.Contains(t, first.hashes(), got.Transactions[0].Hash)
				for _, tx := range first.Transactions {
					require.Equal(t, got.Transactions[0].Lt, tx.Lt)
				}
				// paging: limit 1 offset 1 is the second by lt desc
				var second v3BlockTxs
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?workchain=%d&shard=%s&seqno=%d&limit=1&offset=1",
					b.workchain, b.shard, b.seqno), &second))
				if b.txCount > 1 {
					var desc v3BlockTxs
					v3get(t, h, fmt.Sprintf("/api/v3/transactions?workchain=%d&shard=%s&seqno=%d&limit=2", b.workchain, b.shard, b.seqno), &desc)
					require.Equal(t, desc.Transactions[1].Hash, second.Transactions[0].Hash)
				}
			}
			count := func(path string) int {
				var l v3BlockTxs
				require.Equal(t, 200, v3get(t, h, path+"&limit=1000", &l), path)
				for _, tx := range l.Transactions {
					require.NotNil(t, tx.BlockRef, path)
				}
				return len(l.Transactions)
			}
			// The fee-replay block's 269 transactions hold their block too.
			const replayTxs = 269
			for wc, n := range perWorkchain {
				extra := 0
				if wc == 0 {
					extra = replayTxs
				}
				if n+extra <= 1000 {
					require.Equal(t, n+extra, count(fmt.Sprintf("/api/v3/transactions?workchain=%d", wc)), wc)
				}
			}
			for seqno, n := range perSeqno {
				require.Equal(t, n, count(fmt.Sprintf("/api/v3/transactions?seqno=%d", seqno)), seqno)
			}
			require.Equal(t, perShard["-18000000000000000"], count("/api/v3/transactions?shard=8000000000000000&workchain=-1"))
			require.Equal(t, perShard["-18000000000000000"], count("/api/v3/transactions?shard=-9223372036854775808&workchain=-1"))

			// A transaction from trace JSON does not know its block.
			var fromJSON v3BlockTxs
			require.Equal(t, 200, v3get(t, h, "/api/v3/transactions?limit=1&account="+traceJSONAccount(t, traceFiles[0]), &fromJSON))
			require.Len(t, fromJSON.Transactions, 1)
			require.Nil(t, fromJSON.Transactions[0].BlockRef)

			// By masterchain block: the fee-replay shard block's
			// transactions (the file names its masterchain block), equal
			// to /transactions?mc_seqno=, in lt order both ways.
			var byMc, byFilter, asc v3BlockTxs
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactionsByMasterchainBlock?seqno=%d&limit=1000", replayMc), &byMc))
			require.Len(t, byMc.Transactions, replayTxs)
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?mc_seqno=%d&limit=1000", replayMc), &byFilter))
			require.Equal(t, byFilter.hashes(), byMc.hashes())
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactionsByMasterchainBlock?seqno=%d&limit=1000&sort=asc", replayMc), &asc))
			for i := range byMc.Transactions {
				require.Equal(t, *byMc.Transactions[i].McSeqno, int64(replayMc))
				require.Equal(t, byMc.Transactions[i].Lt, asc.Transactions[len(asc.Transactions)-1-i].Lt)
			}
			var page v3BlockTxs
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactionsByMasterchainBlock?seqno=%d&limit=5&offset=3", replayMc), &page))
			require.Equal(t, byMc.hashes()[3:8], page.hashes())
			var none v3BlockTxs
			require.Equal(t, 200, v3get(t, h, "/api/v3/transactionsByMasterchainBlock?seqno=1", &none))
			require.Empty(t, none.Transactions)
			// The masterchain block's own transactions are committed by it.
			for _, b := range want {
				if b.master {
					var own v3BlockTxs
					require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactionsByMasterchainBlock?seqno=%d&limit=1000", b.seqno), &own))
					require.ElementsMatch(t, txsOf[fmt.Sprint(b.workchain, " ", b.shard, " ", b.seqno)], own.hashes())
				}
			}

			// Shard state: the fee-replay block is the newest of its shard
			// as of its masterchain block; a masterchain block the store
			// holds lists itself.
			var state struct {
				Blocks []v3Block `json:"blocks"`
			}
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/masterchainBlockShardState?seqno=%d", replayMc), &state))
			require.Len(t, state.Blocks, 1)
			require.Equal(t, uint32(71398501), state.Blocks[0].Seqno)
			require.Equal(t, "8000000000000000", state.Blocks[0].Shard)
			require.Equal(t, int32(0), state.Blocks[0].Workchain)
			for _, b := range want {
				if b.master {
					require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/masterchainBlockShardState?seqno=%d", b.seqno), &state))
					require.NotEmpty(t, state.Blocks)
					b.matches(t, state.Blocks[0]) // workchain -1 sorts first
				}
			}
			require.Equal(t, http.StatusNotFound, v3get(t, h, "/api/v3/masterchainBlockShardState?seqno=1", nil))

			// GraphQL's transactions take the same block filters.
			f := &fixture{h: h}
			for _, b := range want {
				if b.txCount == 0 {
					continue
				}
				var rest v3BlockTxs
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactions?workchain=%d&shard=%s&seqno=%d&limit=1000", b.workchain, b.shard, b.seqno), &rest))
				var gql struct {
					Data struct {
						Transactions []struct {
							Hash string `json:"hash"`
						} `json:"transactions"`
					}
				}
				require.NoError(t, json.Unmarshal(f.graphql(t, fmt.Sprintf(`{ transactions(filter: {workchain: %d, shard: "%s", seqno: %d}, limit: 1000) { hash } }`,
					b.workchain, b.shard, b.seqno), nil), &gql))
				got := make([]string, len(gql.Data.Transactions))
				for i, g := range gql.Data.Transactions {
					got[i] = g.Hash
				}
				require.Equal(t, rest.hashes(), got)
			}
			gqlErr := f.graphql(t, `{ transactions(filter: {shard: "zz"}) { hash } }`, nil)
			require.Contains(t, string(gqlErr), "shard")
			require.Contains(t, string(gqlErr), "INVALID_INPUT")

			for path, field := range map[string]string{
				"/api/v3/transactions?workchain=x":                            "workchain",
				"/api/v3/transactions?workchain=99999999999":                  "workchain",
				"/api/v3/transactions?shard=zz":                               "shard",
				"/api/v3/transactions?seqno=-1":                               "seqno",
				"/api/v3/transactions?offset=10001":                           "offset",
				"/api/v3/transactionsByMasterchainBlock":                      "seqno",
				"/api/v3/transactionsByMasterchainBlock?seqno=x":              "seqno",
				"/api/v3/transactionsByMasterchainBlock?seqno=1&limit=0":      "limit",
				"/api/v3/transactionsByMasterchainBlock?seqno=1&sort=up":      "sort",
				"/api/v3/transactionsByMasterchainBlock?seqno=1&offset=10001": "offset",
				"/api/v3/transactionsByMasterchainBlock?seqno=1&workchain=0":  "workchain",
				"/api/v3/masterchainBlockShardState":                          "seqno",
				"/api/v3/masterchainBlockShardState?seqno=abc":                "seqno",
				"/api/v3/masterchainBlockShardState?seqno=1&limit=5":          "limit",
			} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, path)
				require.Contains(t, rec.Body.String(), field, path)
			}
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/transactionsByMasterchainBlock?seqno=%d&api_key=k", replayMc), nil))
		})
	}
}
