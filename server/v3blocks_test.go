package server_test

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/internal/testenv"
)

// fileBlock is what a block file says of itself, decoded with tongo here
// (not by the importer under test).
type fileBlock struct {
	workchain                      int32
	shard                          string // toncenter's hex
	seqno                          uint32
	rootHash, fileHash             string
	globalID                       int32
	genUtime                       uint32
	startLt, endLt                 uint64
	keyBlock, master               bool
	minRefMcSeqno, catchainSeqno   uint32
	txCount                        int
	prevKeyBlockSeqno, vertSeqno   uint32
	validatorListHashShort, flags  uint32
	afterMerge, beforeSplit, split bool
	vertSeqnoIncr                  bool
	randSeed, createdBy            string
}

func readFileBlocks(t *testing.T) []fileBlock {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	var out []fileBlock
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		cells, err := boc.DeserializeBoc(data)
		require.NoError(t, err)
		root, err := cells[0].Hash()
		require.NoError(t, err)
		var blk tlb.Block
		require.NoError(t, tlb.Unmarshal(cells[0], &blk))
		info := blk.Info
		file := sha256.Sum256(data)
		shard := info.Shard.ShardPrefix | 1<<(63-uint64(info.Shard.ShardPfxBits))
		out = append(out, fileBlock{workchain: info.Shard.WorkchainID, shard: fmt.Sprintf("%X", shard), seqno: info.SeqNo,
			rootHash: base64.StdEncoding.EncodeToString(root), fileHash: base64.StdEncoding.EncodeToString(file[:]),
			globalID: blk.GlobalId, genUtime: info.GenUtime, startLt: info.StartLt, endLt: info.EndLt, keyBlock: info.KeyBlock,
			master: !info.NotMaster, minRefMcSeqno: info.MinRefMcSeqno, catchainSeqno: info.GenCatchainSeqno,
			txCount: len(blk.AllTransactions()), prevKeyBlockSeqno: info.PrevKeyBlockSeqno, vertSeqno: info.VertSeqNo,
			validatorListHashShort: info.GenValidatorListHashShort, flags: uint32(info.Flags),
			afterMerge: info.AfterMerge, beforeSplit: info.BeforeSplit, split: info.AfterSplit,
			vertSeqnoIncr: info.VertSeqnoIncr, randSeed: base64.StdEncoding.EncodeToString(blk.Extra.RandSeed[:]),
			createdBy: base64.StdEncoding.EncodeToString(blk.Extra.CreatedBy[:])})
	}
	return out
}

type v3Block struct {
	Workchain              int32   `json:"workchain"`
	Shard                  string  `json:"shard"`
	Seqno                  uint32  `json:"seqno"`
	RootHash               string  `json:"root_hash"`
	FileHash               string  `json:"file_hash"`
	GlobalID               int32   `json:"global_id"`
	GenUtime               string  `json:"gen_utime"`
	StartLt                string  `json:"start_lt"`
	EndLt                  string  `json:"end_lt"`
	KeyBlock               bool    `json:"key_block"`
	AfterMerge             bool    `json:"after_merge"`
	BeforeSplit            bool    `json:"before_split"`
	AfterSplit             bool    `json:"after_split"`
	Flags                  uint32  `json:"flags"`
	MinRefMcSeqno          uint32  `json:"min_ref_mc_seqno"`
	GenCatchainSeqno       uint32  `json:"gen_catchain_seqno"`
	PrevKeyBlockSeqno      uint32  `json:"prev_key_block_seqno"`
	VertSeqno              uint32  `json:"vert_seqno"`
	ValidatorListHashShort int64   `json:"validator_list_hash_short"`
	TxCount                int     `json:"tx_count"`
	MasterRefSeqno         *uint32 `json:"master_ref_seqno"`
	VertSeqnoIncr          *bool   `json:"vert_seqno_incr"`
	RandSeed               *string `json:"rand_seed"`
	CreatedBy              *string `json:"created_by"`
	MasterchainBlockRef    *struct {
		Workchain int32  `json:"workchain"`
		Shard     string `json:"shard"`
		Seqno     uint32 `json:"seqno"`
	} `json:"masterchain_block_ref"`
}

func (b fileBlock) matches(t *testing.T, got v3Block) {
	t.Helper()
	require.Equal(t, b.workchain, got.Workchain)
	require.Equal(t, b.shard, got.Shard)
	require.Equal(t, b.seqno, got.Seqno)
	require.Equal(t, b.rootHash, got.RootHash)
	require.Equal(t, b.fileHash, got.FileHash)
	require.Equal(t, b.globalID, got.GlobalID)
	require.Equal(t, strconv.FormatUint(uint64(b.genUtime), 10), got.GenUtime)
	require.Equal(t, strconv.FormatUint(b.startLt, 10), got.StartLt)
	require.Equal(t, strconv.FormatUint(b.endLt, 10), got.EndLt)
	require.Equal(t, b.keyBlock, got.KeyBlock)
	require.Equal(t, b.afterMerge, got.AfterMerge)
	require.Equal(t, b.beforeSplit, got.BeforeSplit)
	require.Equal(t, b.split, got.AfterSplit)
	require.Equal(t, b.flags, got.Flags)
	require.Equal(t, b.minRefMcSeqno, got.MinRefMcSeqno)
	require.Equal(t, b.catchainSeqno, got.GenCatchainSeqno)
	require.Equal(t, b.prevKeyBlockSeqno, got.PrevKeyBlockSeqno)
	require.Equal(t, b.vertSeqno, got.VertSeqno)
	require.Equal(t, int64(int32(b.validatorListHashShort)), got.ValidatorListHashShort)
	require.Equal(t, b.txCount, got.TxCount)
	require.Equal(t, &b.vertSeqnoIncr, got.VertSeqnoIncr)
	require.Equal(t, &b.randSeed, got.RandSeed)
	require.Equal(t, &b.createdBy, got.CreatedBy)
	require.NotNil(t, got.MasterRefSeqno)
	if b.master {
		require.Equal(t, uint32(0), *got.MasterRefSeqno) // as toncenter's indexer writes it
		require.NotNil(t, got.MasterchainBlockRef)
		require.Equal(t, b.seqno, got.MasterchainBlockRef.Seqno) // a masterchain block commits itself
	}
}

// TestV3BlocksOverImportedBlocks imports the raw block files and reads
// them through toncenter's v3 block routes, on SQLite and Postgres: each
// block's fields equal the file's own (decoded here with tongo), filters
// and paging select and order what they say, and bad or unknown
// parameters answer 422 naming them.
func TestV3BlocksOverImportedBlocks(t *testing.T) {
	want := readFileBlocks(t)
	if len(want) == 0 {
		t.Skip("no block fixtures")
	}
	byKey := map[string]fileBlock{}
	var masters []fileBlock
	for _, b := range want {
		byKey[fmt.Sprint(b.workchain, b.shard, b.seqno)] = b
		if b.master {
			masters = append(masters, b)
		}
	}
	sort.Slice(masters, func(i, j int) bool { return masters[i].seqno < masters[j].seqno })
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h := importBlocks(t, db)
			type list struct {
				Blocks []v3Block `json:"blocks"`
			}
			var all list
			require.Equal(t, 200, v3get(t, h, "/api/v3/blocks?limit=1000&sort=asc", &all))
			require.Len(t, all.Blocks, len(byKey))
			for i, got := range all.Blocks {
				b, ok := byKey[fmt.Sprint(got.Workchain, got.Shard, got.Seqno)]
				require.True(t, ok, got)
				b.matches(t, got)
				if i > 0 {
					prev, _ := strconv.ParseUint(all.Blocks[i-1].GenUtime, 10, 32)
					require.LessOrEqual(t, uint32(prev), b.genUtime)
				}
			}
			var desc list
			require.Equal(t, 200, v3get(t, h, "/api/v3/blocks?limit=1000", &desc)) // sort defaults to desc
			require.Len(t, desc.Blocks, len(all.Blocks))
			for i := range desc.Blocks {
				require.Equal(t, all.Blocks[len(all.Blocks)-1-i].RootHash, desc.Blocks[i].RootHash)
			}
			var page list
			require.Equal(t, 200, v3get(t, h, "/api/v3/blocks?limit=2&offset=1&sort=asc", &page))
			require.Len(t, page.Blocks, 2)
			require.Equal(t, all.Blocks[1].RootHash, page.Blocks[0].RootHash)
			require.Equal(t, all.Blocks[2].RootHash, page.Blocks[1].RootHash)

			// one block by workchain, shard (hex or signed decimal), seqno
			for _, b := range want {
				var one list
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/blocks?workchain=%d&shard=%s&seqno=%d", b.workchain, b.shard, b.seqno), &one))
				require.Len(t, one.Blocks, 1)
				b.matches(t, one.Blocks[0])
				u, _ := strconv.ParseUint(b.shard, 16, 64)
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/blocks?workchain=%d&shard=%d&seqno=%d", b.workchain, int64(u), b.seqno), &one))
				require.Len(t, one.Blocks, 1)
				require.Equal(t, b.rootHash, one.Blocks[0].RootHash)
				// by either hash, in any of toncenter's forms (url-safe base64 here)
				for name, hash := range map[string]string{"root_hash": b.rootHash, "file_hash": b.fileHash} {
					raw, err := base64.StdEncoding.DecodeString(hash)
					require.NoError(t, err)
					require.Equal(t, 200, v3get(t, h, "/api/v3/blocks?"+name+"="+base64.RawURLEncoding.EncodeToString(raw), &one))
					require.Len(t, one.Blocks, 1, name)
					require.Equal(t, b.rootHash, one.Blocks[0].RootHash)
				}
			}

			// time and lt ranges select what the files say they hold
			mid := want[len(want)/2]
			var wantUtime, wantLt int
			for _, b := range want {
				if b.genUtime >= mid.genUtime {
					wantUtime++
				}
				if b.startLt <= mid.startLt {
					wantLt++
				}
			}
			var r list
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/blocks?limit=1000&start_utime=%d", mid.genUtime), &r))
			require.Len(t, r.Blocks, wantUtime)
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/blocks?limit=1000&end_lt=%d", mid.startLt), &r))
			require.Len(t, r.Blocks, wantLt)
			require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/blocks?limit=1000&start_lt=%d&end_lt=%d", mid.startLt, mid.startLt), &r))
			require.NotEmpty(t, r.Blocks)
			for _, got := range r.Blocks {
				require.Equal(t, strconv.FormatUint(mid.startLt, 10), got.StartLt)
			}

			var info struct {
				Last  v3Block `json:"last"`
				First v3Block `json:"first"`
			}
			code := v3get(t, h, "/api/v3/masterchainInfo", &info)
			if len(masters) == 0 {
				require.Equal(t, http.StatusNotFound, code)
			} else {
				require.Equal(t, 200, code)
				masters[0].matches(t, info.First)
				masters[len(masters)-1].matches(t, info.Last)
				mc := masters[0]
				var shards list
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/masterchainBlockShards?seqno=%d", mc.seqno), &shards))
				require.NotEmpty(t, shards.Blocks)
				found := false
				for _, got := range shards.Blocks {
					require.Equal(t, mc.seqno, got.MasterchainBlockRef.Seqno)
					found = found || got.RootHash == mc.rootHash
				}
				require.True(t, found, "the masterchain block is listed with its shards")
				var byMc list
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/blocks?mc_seqno=%d&limit=1000", mc.seqno), &byMc))
				require.Equal(t, len(shards.Blocks), len(byMc.Blocks))
			}
			require.Equal(t, http.StatusNotFound, v3get(t, h, "/api/v3/masterchainBlockShards?seqno=1", nil))
			// api_key is accepted and ignored.
			require.Equal(t, 200, v3get(t, h, "/api/v3/blocks?limit=1&api_key=anything", nil))

			for path, field := range map[string]string{
				"/api/v3/blocks?workchain=x":                         "workchain",
				"/api/v3/blocks?workchain=0&shard=zz":                "shard",
				"/api/v3/blocks?shard=8000000000000000":              "shard",
				"/api/v3/blocks?workchain=0&seqno=1":                 "seqno",
				"/api/v3/blocks?mc_seqno=-1":                         "mc_seqno",
				"/api/v3/blocks?start_utime=soon":                    "start_utime",
				"/api/v3/blocks?end_lt=-5":                           "end_lt",
				"/api/v3/blocks?limit=0":                             "limit",
				"/api/v3/blocks?offset=10001":                        "offset",
				"/api/v3/blocks?sort=up":                             "sort",
				"/api/v3/blocks?root_hash=abc":                       "root_hash",
				"/api/v3/blocks?colour=blue":                         "colour",
				"/api/v3/masterchainInfo?seqno=1":                    "seqno",
				"/api/v3/masterchainBlockShards":                     "seqno",
				"/api/v3/masterchainBlockShards?seqno=x":             "seqno",
				"/api/v3/masterchainBlockShards?seqno=1&workchain=0": "workchain",
			} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, path)
				require.Contains(t, rec.Body.String(), field, path)
			}
		})
	}
}
