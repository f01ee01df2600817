package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/internal/testenv"
)

// blockFacts are a raw block's own facts, read here with tongo alone (not
// through the code under test): its hashes and its transactions.
type blockFacts struct {
	rootHash, fileHash string
	txs                []txFact
}

type txFact struct {
	account              ton.AccountID
	Lt, Hash, Fees, Prev string
	inCreatedLt          uint64
	inSource             string
	outCreatedLts        map[uint64]string // created_lt -> destination (raw)
}

func readBlockFacts(t *testing.T, path string) blockFacts {
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(raw)
	require.NoError(t, err)
	root, err := cells[0].Hash()
	require.NoError(t, err)
	file := sha256.Sum256(raw)
	var blk tlb.Block
	require.NoError(t, tlb.Unmarshal(cells[0], &blk))
	f := blockFacts{rootHash: base64.StdEncoding.EncodeToString(root), fileHash: base64.StdEncoding.EncodeToString(file[:])}
	for _, tx := range blk.AllTransactions() {
		fact := txFact{account: *ton.NewAccountID(blk.Info.Shard.WorkchainID, tx.AccountAddr),
			Lt: strconv.FormatUint(tx.Lt, 10), Hash: "",
			Fees: strconv.FormatUint(uint64(tx.TotalFees.Grams), 10), Prev: strconv.FormatUint(tx.PrevTransLt, 10),
			outCreatedLts: map[uint64]string{}}
		h := tx.Hash()
		fact.Hash = base64.StdEncoding.EncodeToString(h[:])
		if tx.Msgs.InMsg.Exists {
			m := tx.Msgs.InMsg.Value.Value
			if m.Info.SumType == "IntMsgInfo" {
				fact.inCreatedLt = m.Info.IntMsgInfo.CreatedLt
				src, err := ton.AccountIDFromTlb(m.Info.IntMsgInfo.Src)
				require.NoError(t, err)
				fact.inSource = src.ToRaw()
			}
		}
		for _, out := range tx.Msgs.OutMsgs.Values() {
			if out.Value.Info.SumType == "IntMsgInfo" {
				dst, err := ton.AccountIDFromTlb(out.Value.Info.IntMsgInfo.Dest)
				require.NoError(t, err)
				fact.outCreatedLts[out.Value.Info.IntMsgInfo.CreatedLt] = dst.ToRaw()
			}
		}
		f.txs = append(f.txs, fact)
	}
	return f
}

// TestHistoryThroughClients runs `tonql serve` as shipped over the raw
// blocks of fixtures/blocks (and the mainnet config BOC), imported by
// `tonql import`, and reads them with @ton/ton and tonweb unchanged:
// transaction hashes, lts, fees and block hashes are the blocks' own.
func TestHistoryThroughClients(t *testing.T) {
	nodeBin := node(t)
	blocksDir := filepath.Join(testenv.FixturesDir(t), "blocks")
	config := testenv.Fixture(t, "fee-replay/blockchain_config_mainnet.boc")
	dir := t.TempDir()
	bin := buildTonql(t, dir)
	env := append(os.Environ(), "DATABASE_URL=sqlite:"+filepath.Join(dir, "tonql.db"), "REDIS_URL=",
		"LITE_SERVERS=", "LITE_SERVERS_CONFIG=", "FOLLOW=false")
	imp := exec.Command(bin, "import", blocksDir, config)
	imp.Env = env
	out, err := imp.CombinedOutput()
	require.NoError(t, err, string(out))
	base := startBinary(t, bin, env)

	big := readBlockFacts(t, filepath.Join(blocksDir, "block-3.bin"))    // shard 0:8000..., seqno 40484438
	small := readBlockFacts(t, filepath.Join(blocksDir, "block-6.bin"))  // shard 0:a000..., seqno 54302208
	master := readBlockFacts(t, filepath.Join(blocksDir, "block-5.bin")) // the masterchain block 17734191
	zero := ton.MustParseAccountID("0:0000000000000000000000000000000000000000000000000000000000000000")
	var history []txFact // the zero account's, newest first
	for _, tx := range big.txs {
		if tx.account == zero {
			history = append(history, tx)
		}
	}
	sort.Slice(history, func(i, j int) bool { return lt(history[i].Lt) > lt(history[j].Lt) })
	require.Len(t, history, 477)
	newest := history[0]
	var source txFact // the sender of the newest one's message
	for _, tx := range big.txs {
		if tx.outCreatedLts[newest.inCreatedLt] == zero.ToRaw() {
			source = tx
		}
	}
	require.NotEmpty(t, source.Hash)

	input := map[string]any{
		"endpoint":   base + "/api/v2/jsonRPC",
		"account":    zero.ToRaw(),
		"block":      map[string]any{"workchain": 0, "shard": "-9223372036854775808", "seqno": 40484438, "lt": big.txs[5].Lt},
		"smallBlock": map[string]any{"workchain": 0, "shard": "-6917529027641081856", "seqno": 54302208},
		"locate":     map[string]any{"source": newest.inSource, "destination": zero.ToRaw(), "created_lt": strconv.FormatUint(newest.inCreatedLt, 10)},
		"configId":   20,
	}
	a := runScript(t, nodeBin, "history.mjs", input)

	type coreTx struct{ Lt, Hash, Fees, PrevLt string }
	asCore := func(txs ...txFact) []coreTx {
		out := make([]coreTx, len(txs))
		for i, tx := range txs {
			out[i] = coreTx{tx.Lt, tx.Hash, tx.Fees, tx.Prev}
		}
		return out
	}
	type webTx struct{ Lt, Hash, Fees string }
	asWeb := func(txs ...txFact) []webTx {
		out := make([]webTx, len(txs))
		for i, tx := range txs {
			out[i] = webTx{tx.Lt, tx.Hash, tx.Fees}
		}
		return out
	}
	// @ton/ton: limit; the next page from the last one (TonClient drops
	// the one it names); to_lt; one transaction by lt and hash; tryLocate.
	require.Equal(t, asCore(history[:5]...), decode[[]coreTx](t, a.answer("ton/txs")))
	require.Equal(t, asCore(history[5:10]...), decode[[]coreTx](t, a.answer("ton/txs/next")))
	require.Equal(t, asCore(history[:3]...), decode[[]coreTx](t, a.answer("ton/txs/to_lt")))
	require.Equal(t, asCore(history[2]), []coreTx{decode[coreTx](t, a.answer("ton/tx"))})
	require.Equal(t, asCore(newest), []coreTx{decode[coreTx](t, a.answer("ton/result"))})
	require.Equal(t, asCore(source), []coreTx{decode[coreTx](t, a.answer("ton/source"))})
	mc := decode[map[string]any](t, a.answer("ton/masterchain"))
	require.EqualValues(t, 17734191, mc["latestSeqno"])
	type shardTx struct{ Account, Lt, Hash string }
	var wantShard []shardTx
	for _, tx := range small.txs {
		wantShard = append(wantShard, shardTx{tx.account.ToRaw(), tx.Lt, tx.Hash})
	}
	sort.Slice(wantShard, func(i, j int) bool {
		if wantShard[i].Account != wantShard[j].Account {
			return wantShard[i].Account < wantShard[j].Account
		}
		return lt(wantShard[i].Lt) < lt(wantShard[j].Lt)
	})
	require.Equal(t, wantShard, decode[[]shardTx](t, a.answer("ton/shardTxs")))

	// tonweb: the same history (tonweb keeps the transaction it names)
	require.Equal(t, asWeb(history[:5]...), decode[[]webTx](t, a.answer("tonweb/txs")))
	require.Equal(t, asWeb(history[4:9]...), decode[[]webTx](t, a.answer("tonweb/txs/next")))
	require.Equal(t, asWeb(history[:3]...), decode[[]webTx](t, a.answer("tonweb/txs/to_lt")))
	type blockID struct {
		Workchain int32
		Shard     string
		Seqno     uint32
		RootHash  string `json:"root_hash"`
		FileHash  string `json:"file_hash"`
	}
	var webMc struct{ Last blockID }
	require.NoError(t, json.Unmarshal(a.answer("tonweb/masterchain").Value, &webMc))
	require.Equal(t, blockID{-1, "-9223372036854775808", 17734191, master.rootHash, master.fileHash}, webMc.Last)
	bigID := blockID{0, "-9223372036854775808", 40484438, big.rootHash, big.fileHash}
	var header struct {
		ID         blockID
		StartLt    string    `json:"start_lt"`
		EndLt      string    `json:"end_lt"`
		GenUtime   uint32    `json:"gen_utime"`
		PrevBlocks []blockID `json:"prev_blocks"`
	}
	require.NoError(t, json.Unmarshal(a.answer("tonweb/header").Value, &header))
	require.Equal(t, bigID, header.ID)
	require.Len(t, header.PrevBlocks, 1)
	require.Equal(t, "1701783441", strconv.FormatUint(uint64(header.GenUtime), 10))
	for _, tx := range big.txs {
		require.True(t, lt(header.StartLt) <= lt(tx.Lt) && lt(tx.Lt) < lt(header.EndLt), "tx lt %s in the block's range", tx.Lt)
	}
	require.EqualValues(t, 40484437, header.PrevBlocks[0].Seqno)
	require.Equal(t, bigID, decode[blockID](t, a.answer("tonweb/lookup")))
	var blockTxs struct{ First, Next []shardTx }
	require.NoError(t, json.Unmarshal(a.answer("tonweb/blockTxs").Value, &blockTxs))
	var wantBig []shardTx
	for _, tx := range big.txs {
		wantBig = append(wantBig, shardTx{tx.account.ToRaw(), tx.Lt, tx.Hash})
	}
	sort.Slice(wantBig, func(i, j int) bool {
		if wantBig[i].Account != wantBig[j].Account {
			return wantBig[i].Account < wantBig[j].Account
		}
		return lt(wantBig[i].Lt) < lt(wantBig[j].Lt)
	})
	require.Equal(t, wantBig[:30], blockTxs.First)
	require.Equal(t, wantBig[30:60], blockTxs.Next)

	// tonweb's getConfigParam: param 20 of the imported config, by hash
	require.Equal(t, configParamHash(t, config, 20), decode[string](t, a.answer("tonweb/config")))
}

func lt(s string) uint64 {
	v, _ := strconv.ParseUint(s, 10, 64)
	return v
}

func decode[T any](t *testing.T, ans scriptAnswer) T {
	t.Helper()
	require.Empty(t, ans.Error)
	var v T
	d := json.NewDecoder(bytes.NewReader(ans.Value))
	require.NoError(t, d.Decode(&v), string(ans.Value))
	return v
}

func configParamHash(t *testing.T, path string, id uint32) string {
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(raw)
	require.NoError(t, err)
	var params tlb.ConfigParams
	require.NoError(t, tlb.Unmarshal(cells[0], &params.Config))
	for _, item := range params.Config.Items() {
		if uint32(item.Key) == id {
			c := boc.Cell(item.Value.Value)
			h, err := c.Hash()
			require.NoError(t, err)
			return hex.EncodeToString(h)
		}
	}
	t.Fatalf("config param %d missing", id)
	return ""
}
