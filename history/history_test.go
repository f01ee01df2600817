package history_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/history"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// summary is what a block's INDEX-tx-summary.txt (written beside the
// fixture, by other tools) says: the block and each transaction.
type summary struct {
	wc              int32
	seqno, utime    uint32
	txs             int
	lts             map[string]uint64 // hash (hex) -> lt
	fees            map[string]uint64 // hash (hex) -> total fees
	accountPrefixes map[string]string // hash (hex) -> first 12 hex digits of the account
}

var (
	blockLine = regexp.MustCompile(`^BLOCK global_id=-?\d+ wc=(-?\d+) seqno=(\d+) gen_utime=(\d+) txs=(\d+)`)
	txLine    = regexp.MustCompile(`^\s+TX lt=(\d+) now=\d+ acct=([0-9a-f]+) .* fees=(\d+) .*hash=([0-9a-f]{64})`)
)

func readSummary(t *testing.T, path string) summary {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s := summary{lts: map[string]uint64{}, fees: map[string]uint64{}, accountPrefixes: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if m := blockLine.FindStringSubmatch(sc.Text()); m != nil {
			wc, _ := strconv.Atoi(m[1])
			seqno, _ := strconv.ParseUint(m[2], 10, 32)
			utime, _ := strconv.ParseUint(m[3], 10, 32)
			s.wc, s.seqno, s.utime = int32(wc), uint32(seqno), uint32(utime)
			s.txs, _ = strconv.Atoi(m[4])
		} else if m := txLine.FindStringSubmatch(sc.Text()); m != nil {
			lt, _ := strconv.ParseUint(m[1], 10, 64)
			fee, _ := strconv.ParseUint(m[3], 10, 64)
			s.lts[m[4]], s.fees[m[4]], s.accountPrefixes[m[4]] = lt, fee, m[2]
		}
	}
	require.NoError(t, sc.Err())
	require.NotZero(t, s.seqno, path)
	return s
}

// importBlocks imports fixtures/blocks the way `tonql import` does.
func importBlocks(t *testing.T, url string) *store.Store {
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	_, err = st.Migrate(ctx)
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("no block fixtures")
	}
	im := ingest.New(st)
	require.NoError(t, im.ImportFiles(ctx, files, func(path string, _ ingest.Stats, err error) {
		require.NoError(t, err, path)
	}))
	return st
}

const zeroAccount = "0:0000000000000000000000000000000000000000000000000000000000000000"

func TestBlocksAndTransactions(t *testing.T) {
	ctx := context.Background()
	summaries, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "block-*.INDEX-tx-summary.txt"))
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h := history.New(importBlocks(t, db.URL), nil)
			require.NotEmpty(t, summaries)
			for _, path := range summaries {
				want := readSummary(t, path)
				shard := history.MasterShard
				if want.wc == 0 {
					// a shard block: find its shard through lookup by lt
					// in every shard the store holds for the workchain.
					shard = findShard(t, h, want)
				}
				b, err := h.Block(ctx, want.wc, shard, want.seqno, chain.Hash{}, chain.Hash{})
				require.NoError(t, err)
				require.Equal(t, want.utime, b.GenUtime, path)
				require.Equal(t, want.txs, b.TxCount, path)

				// the block's transactions: the summary's, with its lts and fees
				got := map[string]uint64{}
				var after *history.AccountTx
				for page := 0; ; page++ {
					txs, incomplete, err := h.BlockTransactions(ctx, b, after, 100)
					require.NoError(t, err)
					for _, tx := range txs {
						got[tx.Hash.Hex()] = tx.Lt
						require.Equal(t, want.fees[tx.Hash.Hex()], tx.TotalFees, "fees of %s", tx.Hash.Hex())
						require.True(t, strings.HasPrefix(strings.ToLower(tx.Account[strings.IndexByte(tx.Account, ':')+1:]), want.accountPrefixes[tx.Hash.Hex()]))
					}
					if !incomplete {
						break
					}
					last := txs[len(txs)-1]
					after = &history.AccountTx{Account: last.Address.Address, Lt: last.Lt}
				}
				require.Equal(t, want.lts, got, path)

				// lookup by lt and by time find the block; a wrong root hash does not
				lt := b.StartLt + 1
				byLt, err := h.LookupBlock(ctx, want.wc, shard, store.BlockLookup{Lt: &lt})
				require.NoError(t, err)
				require.Equal(t, b.BlockID, byLt.BlockID)
				byTime, err := h.LookupBlock(ctx, want.wc, shard, store.BlockLookup{Utime: &want.utime})
				require.NoError(t, err)
				require.Equal(t, want.utime, byTime.GenUtime)
				_, err = h.Block(ctx, want.wc, shard, want.seqno, chain.Hash{1}, chain.Hash{})
				require.Equal(t, apperr.NotFound, apperr.From(err).Kind)
			}

			// the newest masterchain block is block-5's
			last, err := h.LastMasterBlock(ctx)
			require.NoError(t, err)
			require.EqualValues(t, 17734191, last.Seqno)
			shards, err := h.Shards(ctx, 17734191)
			require.NoError(t, err)
			require.Empty(t, shards, "no shard block of the fixtures says it is committed by block-5")

			accountHistory(t, h)
		})
	}
}

func findShard(t *testing.T, h *history.History, want summary) int64 {
	for _, shard := range []int64{history.MasterShard, -6917529027641081856} {
		if b, err := h.Block(context.Background(), want.wc, shard, want.seqno, chain.Hash{}, chain.Hash{}); err == nil && b != nil {
			return shard
		}
	}
	t.Fatalf("block %d not stored", want.seqno)
	return 0
}

// accountHistory pages through the zero account's history in block-3
// (477 transactions, each linked to the one before) the way a client does:
// limit, then from the last one's predecessor; and with to_lt.
func accountHistory(t *testing.T, h *history.History) {
	ctx := context.Background()
	want := readSummary(t, filepath.Join(testenv.FixturesDir(t), "blocks", "block-3.INDEX-tx-summary.txt"))
	var mine []uint64
	for hash, lt := range want.lts {
		if want.accountPrefixes[hash] == "000000000000" {
			mine = append(mine, lt)
		}
	}
	require.Len(t, mine, 477)
	id := ton.MustParseAccountID(zeroAccount)

	var all []*history.Transaction
	var from *history.TxID
	for {
		page, err := h.AccountTransactions(ctx, id, from, 0, 50)
		require.NoError(t, err)
		if from != nil {
			require.Equal(t, from.Hash, page[0].Hash, "the page starts at the transaction named")
			page = page[1:]
		}
		all = append(all, page...)
		if len(page) == 0 {
			break
		}
		last := page[len(page)-1]
		from = &history.TxID{Lt: last.Lt, Hash: last.Hash}
	}
	// Newest first, each the previous one's predecessor, and all of the
	// block's: the walk stops where the store lacks the predecessor
	// (block-2's transactions are 22 blocks older).
	require.Len(t, all, len(mine))
	for i := 1; i < len(all); i++ {
		require.Equal(t, all[i-1].PrevLt, all[i].Lt)
		require.Equal(t, all[i-1].PrevHash, all[i].Hash)
		require.Equal(t, want.lts[all[i].Hash.Hex()], all[i].Lt)
	}
	// to_lt: only transactions above it
	cut := all[10].Lt
	above, err := h.AccountTransactions(ctx, id, nil, cut, 100)
	require.NoError(t, err)
	require.Len(t, above, 10)
	// a transaction that is not the account's is not found
	_, err = h.AccountTransactions(ctx, id, &history.TxID{Lt: all[0].Lt + 1, Hash: all[0].Hash}, 0, 5)
	require.Equal(t, apperr.NotFound, apperr.From(err).Kind)

	// tryLocate: the message that caused the newest transaction, from its
	// sender's side and from the receiver's
	in := all[0].InMsg
	src := ton.MustParseAccountID(in.Source)
	res, err := h.ResultTransaction(ctx, src, id, in.CreatedLt)
	require.NoError(t, err)
	require.Equal(t, all[0].Hash, res.Hash)
	source, err := h.SourceTransaction(ctx, src, id, in.CreatedLt)
	require.NoError(t, err)
	require.Equal(t, chain.RawAddress(src), source.Account)
	var sent bool
	for _, m := range source.OutMsgs {
		sent = sent || m.Hash == in.Hash
	}
	require.True(t, sent, "the source transaction sent the message")
	_, err = h.ResultTransaction(ctx, src, id, in.CreatedLt+1)
	require.Equal(t, apperr.NotFound, apperr.From(err).Kind)
}

// Transactions imported from toncenter trace JSON have no raw BOC: tonlib's
// shapes are never made up for them, the answer says why.
func TestTraceJSONRowsHaveNoBOC(t *testing.T) {
	ctx := context.Background()
	traces, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	if len(traces) == 0 {
		t.Skip("no trace fixtures")
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st, err := store.Open(ctx, db.URL)
			require.NoError(t, err)
			defer st.Close()
			_, err = st.Migrate(ctx)
			require.NoError(t, err)
			p, err := ingest.ParseFile(traces[0])
			require.NoError(t, err)
			require.NoError(t, ingest.New(st).ImportFiles(ctx, traces[:1], func(path string, _ ingest.Stats, err error) { require.NoError(t, err) }))
			tx := p.Transactions[0]
			h := history.New(st, nil)
			_, err = h.AccountTransactions(ctx, ton.MustParseAccountID(tx.Account), nil, 0, 10)
			require.ErrorIs(t, err, history.ErrNoBOC)
			require.Equal(t, apperr.NotFound, apperr.From(err).Kind)
			_, err = h.Transaction(ctx, tx.Hash)
			require.ErrorIs(t, err, history.ErrNoBOC)
		})
	}
}

// blockArchive stands in for lite servers with the transactions of a real
// block: it answers raw.getTransactions from their own BOCs, following the
// links each transaction carries. lie swaps the second answer for another.
type blockArchive struct {
	byHash map[chain.Hash]*chain.Transaction
	calls  int
	lie    bool
}

func (a *blockArchive) AccountTransactions(_ context.Context, id ton.AccountID, lt uint64, hash [32]byte, count int) ([][]byte, error) {
	a.calls++
	var out [][]byte
	for tx := a.byHash[hash]; tx != nil && len(out) < count; tx = a.byHash[tx.PrevHash] {
		out = append(out, tx.BOC)
	}
	if a.lie && len(out) > 2 {
		out[1] = out[2]
	}
	return out, nil
}

// The store holds the newest 100 of the zero account's 477 transactions in
// block-3; the archive answers for the rest, and the client's paging
// cannot tell where one ends and the other begins.
func TestHistoryOlderThanTheStore(t *testing.T) {
	ctx := context.Background()
	raw, err := os.ReadFile(filepath.Join(testenv.FixturesDir(t), "blocks", "block-3.bin"))
	if err != nil {
		t.Skip("no block fixtures")
	}
	blk, err := chain.ParseBlockBOC(raw)
	require.NoError(t, err)
	archive := &blockArchive{byHash: map[chain.Hash]*chain.Transaction{}}
	var mine []*chain.Transaction
	for _, tx := range blk.Transactions {
		if tx.Account == zeroAccount {
			mine = append(mine, tx)
			archive.byHash[tx.Hash] = tx
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].Lt > mine[j].Lt })
	require.Len(t, mine, 477)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st, err := store.Open(ctx, db.URL)
			require.NoError(t, err)
			defer st.Close()
			_, err = st.Migrate(ctx)
			require.NoError(t, err)
			id := ton.MustParseAccountID(zeroAccount)
			archive.calls, archive.lie = 0, false
			h := history.New(st, archive)

			// only the account's state is stored: it names the newest
			// transaction, the archive has them all
			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Accounts: []chain.AccountState{{Address: zeroAccount, Status: "uninit",
				LastTxLt: mine[0].Lt, LastTxHash: mine[0].Hash, ReadAtUtime: mine[0].Utime}}}))
			first, err := h.AccountTransactions(ctx, id, nil, 0, 60)
			require.NoError(t, err)
			require.Len(t, first, 60)
			for i, tx := range first {
				require.Equal(t, mine[i].Hash, tx.Hash)
			}

			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Transactions: mine[:100]}))

			var all []*history.Transaction
			var from *history.TxID
			for {
				page, err := h.AccountTransactions(ctx, id, from, 0, 60)
				require.NoError(t, err)
				if from != nil {
					page = page[1:]
				}
				if len(page) == 0 {
					break
				}
				all = append(all, page...)
				last := page[len(page)-1]
				from = &history.TxID{Lt: last.Lt, Hash: last.Hash}
			}
			require.Len(t, all, 477)
			for i, tx := range all {
				require.Equal(t, mine[i].Hash, tx.Hash)
				require.Equal(t, mine[i].TotalFees, tx.TotalFees)
			}
			require.Greater(t, archive.calls, 0)

			// to_lt inside the archive's part
			cut := mine[150].Lt
			above, err := h.AccountTransactions(ctx, id, nil, cut, 200)
			require.NoError(t, err)
			require.Len(t, above, 150)

			// without an archive the store's part alone, never a skip
			alone, err := history.New(st, nil).AccountTransactions(ctx, id, nil, 0, 200)
			require.NoError(t, err)
			require.Len(t, alone, 100)

			// an account whose state is stored but none of its transactions:
			// the state names the newest, the archive has them
			other := "0:" + strings.Repeat("AB", 32)
			otherID := ton.MustParseAccountID(other)
			require.NoError(t, st.SaveBatch(ctx, &store.Batch{Accounts: []chain.AccountState{{Address: other, Status: "active",
				LastTxLt: mine[0].Lt, LastTxHash: mine[0].Hash, ReadAtUtime: mine[0].Utime}}}))
			_, err = h.AccountTransactions(ctx, otherID, nil, 0, 5)
			require.Equal(t, apperr.Unavailable, apperr.From(err).Kind, "the archive's transactions are not the account's")
			none, err := history.New(st, nil).AccountTransactions(ctx, otherID, nil, 0, 5)
			require.NoError(t, err)
			require.Empty(t, none)

			// an archive that answers with the wrong transaction is not believed
			archive.lie = true
			_, err = h.AccountTransactions(ctx, id, &history.TxID{Lt: mine[200].Lt, Hash: mine[200].Hash}, 0, 10)
			require.Equal(t, apperr.Unavailable, apperr.From(err).Kind)
		})
	}
}
