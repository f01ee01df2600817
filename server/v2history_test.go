package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

const (
	zeroAccount  = "0:0000000000000000000000000000000000000000000000000000000000000000"
	wholeShard   = "-9223372036854775808"
	block3Seqno  = 40484438
	block5Seqno  = 17734191
	block3Sender = "0:58E70835F2A3F740E8BFE340E58E2743B8CE677AC1DF31BA0985FFFC4F1DCB6E"
	// block-2's first transaction: a wallet sending four text comments
	commenter = "0:BBA4F40FFF709115C62E3D2A9D004C0DAF1E7D2222486E06D36BBE9637FC73BC"
	emptyCell = `{"data":{"b64":"","len":0},"refs":[]}`
)

// v2Posts are the v2 methods whose REST route is a POST with a JSON body.
var v2Posts = map[string]bool{"sendQuery": true, "sendQuerySimple": true}

// importBlocks imports fixtures/blocks and the mainnet config BOC.
func importBlocks(t *testing.T, db testenv.Database) http.Handler {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	if len(files) == 0 {
		t.Skip("no block fixtures")
	}
	files = append(files, testenv.Fixture(t, "fee-replay/blockchain_config_mainnet.boc"))
	st := importedFixtures(t, db, files)
	return newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
}

func query(params map[string]any) url.Values {
	q := url.Values{}
	for k, v := range params {
		q.Set(k, fmt.Sprint(v))
	}
	return q
}

// TestHistoryMethods calls each v2 block and transaction method over
// JSON-RPC and over GET /api/v2/<method> (the answers must be equal, and
// the OpenAPI document must describe them), on SQLite and Postgres.
func TestHistoryMethods(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h := importBlocks(t, db)
			call := func(method string, params map[string]any) json.RawMessage {
				t.Helper()
				res := rpc(t, h, method, params)
				sameAsREST(t, h, method, res, query(params))
				return res
			}
			var txs []struct {
				TransactionID struct{ Lt, Hash string } `json:"transaction_id"`
				InMsg         struct {
					Source    string `json:"source"`
					CreatedLt string `json:"created_lt"`
				} `json:"in_msg"`
				Data string `json:"data"`
			}
			require.NoError(t, json.Unmarshal(call("getTransactions", map[string]any{"address": zeroAccount, "limit": 3}), &txs))
			require.Len(t, txs, 3)
			// the next page starts at the one named (tonlib keeps it)
			var next []struct {
				TransactionID struct{ Lt, Hash string } `json:"transaction_id"`
			}
			require.NoError(t, json.Unmarshal(call("getTransactions", map[string]any{"address": zeroAccount, "limit": 2,
				"lt": txs[2].TransactionID.Lt, "hash": txs[2].TransactionID.Hash}), &next))
			require.Equal(t, txs[2].TransactionID, next[0].TransactionID)
			// strings for numbers, as JavaScript clients send lts
			rpc(t, h, "getTransactions", map[string]any{"address": zeroAccount, "limit": "2", "to_lt": txs[1].TransactionID.Lt, "archival": true})

			// text comments as tonlib shows them (block-2's first transaction
			// sends four, by its summary), anything else raw
			var commented []struct {
				InMsg struct {
					MsgData map[string]string `json:"msg_data"`
				} `json:"in_msg"`
				OutMsgs []struct {
					MsgData map[string]string `json:"msg_data"`
					Message string            `json:"message"`
				} `json:"out_msgs"`
			}
			require.NoError(t, json.Unmarshal(call("getTransactions", map[string]any{"address": commenter, "limit": 1}), &commented))
			require.Len(t, commented[0].OutMsgs, 4)
			for _, m := range commented[0].OutMsgs {
				require.Equal(t, "msg.dataText", m.MsgData["@type"])
				require.NotEmpty(t, m.Message)
				require.Equal(t, base64.StdEncoding.EncodeToString([]byte(m.Message)), m.MsgData["text"])
			}
			require.Equal(t, "msg.dataRaw", commented[0].InMsg.MsgData["@type"]) // a signed external body

			block := map[string]any{"workchain": 0, "shard": wholeShard, "seqno": block3Seqno}
			var header struct {
				ID struct {
					RootHash string `json:"root_hash"`
					FileHash string `json:"file_hash"`
				}
				StartLt string `json:"start_lt"`
			}
			require.NoError(t, json.Unmarshal(call("getBlockHeader", block), &header))
			named := map[string]any{"workchain": 0, "shard": wholeShard, "seqno": block3Seqno, "root_hash": header.ID.RootHash, "file_hash": header.ID.FileHash}
			call("getBlockHeader", named)
			call("lookupBlock", map[string]any{"workchain": 0, "shard": wholeShard, "lt": header.StartLt})
			call("lookupBlock", map[string]any{"workchain": 0, "shard": wholeShard, "seqno": block3Seqno})
			call("lookupBlock", map[string]any{"workchain": 0, "shard": wholeShard, "unixtime": 1701783441})
			call("shards", map[string]any{"seqno": block5Seqno})
			call("getBlockTransactions", map[string]any{"workchain": 0, "shard": wholeShard, "seqno": block3Seqno, "count": 5,
				"after_lt": "43049086000001", "after_hash": strings.Repeat("00", 32)})
			var ext struct {
				Transactions []json.RawMessage
				Incomplete   bool
			}
			require.NoError(t, json.Unmarshal(call("getBlockTransactionsExt", map[string]any{"workchain": -1, "shard": wholeShard, "seqno": block5Seqno}), &ext))
			require.Len(t, ext.Transactions, 6)
			require.False(t, ext.Incomplete)
			locate := map[string]any{"source": block3Sender, "destination": zeroAccount, "created_lt": txs[0].InMsg.CreatedLt}
			for _, m := range []string{"tryLocateTx", "tryLocateResultTx", "tryLocateSourceTx"} {
				call(m, locate)
			}
			call("getConsensusBlock", map[string]any{})
			call("getConfigParam", map[string]any{"config_id": 20})
			call("getConfigAll", map[string]any{})
			var forms struct {
				RawForm   string `json:"raw_form"`
				GivenType string `json:"given_type"`
			}
			require.NoError(t, json.Unmarshal(call("detectAddress", map[string]any{"address": "UQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAJKZ"}), &forms))
			require.Equal(t, strings.ToLower(zeroAccount), forms.RawForm)
			require.Equal(t, "friendly_non_bounceable", forms.GivenType)
			var packed, unpacked string
			require.NoError(t, json.Unmarshal(call("packAddress", map[string]any{"address": zeroAccount}), &packed))
			require.NoError(t, json.Unmarshal(call("unpackAddress", map[string]any{"address": packed}), &unpacked))
			require.Equal(t, strings.ToLower(zeroAccount), unpacked)

			// nothing stored: 404 in toncenter's error body
			rec := doRequest(h, http.MethodGet, "/api/v2/getBlockHeader?workchain=0&shard="+wholeShard+"&seqno=1", "")
			checkV2ErrorAllow(t, rec, http.StatusNotFound, "not in the store", "")
			rec = doRequest(h, http.MethodGet, "/api/v2/getConfigParam?config_id=999", "")
			checkV2ErrorAllow(t, rec, http.StatusNotFound, "config param 999", "")
		})
	}
}

// TestHistoryMethodsBadParams: every malformed parameter is a 422 naming
// it, over JSON-RPC and GET, never a 5xx.
func TestHistoryMethodsBadParams(t *testing.T) {
	h := importBlocks(t, testenv.Databases(t)[0])
	blk := `"workchain":0,"shard":"` + wholeShard + `","seqno":1`
	cases := []callCase{
		{"no address", "getTransactions", `{}`, 422, "address: required"},
		{"bad address", "getTransactions", `{"address":"nope"}`, 422, "address:"},
		{"limit 0", "getTransactions", `{"address":"` + zeroAccount + `","limit":0}`, 422, "limit: must be between 1 and 100"},
		{"limit 101", "getTransactions", `{"address":"` + zeroAccount + `","limit":101}`, 422, "limit:"},
		{"limit text", "getTransactions", `{"address":"` + zeroAccount + `","limit":"ten"}`, 422, "limit: must be an integer"},
		{"lt without hash", "getTransactions", `{"address":"` + zeroAccount + `","lt":5}`, 422, "hash: required with lt"},
		{"hash without lt", "getTransactions", `{"address":"` + zeroAccount + `","hash":"` + strings.Repeat("ab", 32) + `"}`, 422, "lt: required with hash"},
		{"bad hash", "getTransactions", `{"address":"` + zeroAccount + `","lt":5,"hash":"xyz"}`, 422, "hash:"},
		{"negative lt", "getTransactions", `{"address":"` + zeroAccount + `","lt":-5,"hash":"xyz"}`, 422, "lt:"},
		{"bad to_lt", "getTransactions", `{"address":"` + zeroAccount + `","to_lt":1.5}`, 422, "to_lt:"},
		{"bad archival", "getTransactions", `{"address":"` + zeroAccount + `","archival":"maybe"}`, 422, "archival:"},
		{"no workchain", "getBlockHeader", `{"shard":"1","seqno":1}`, 422, "workchain: required"},
		{"workchain 5", "getBlockHeader", `{"workchain":5,"shard":"1","seqno":1}`, 422, "workchain: must be between -1 and 0"},
		{"no shard", "getBlockHeader", `{"workchain":0,"seqno":1}`, 422, "shard: required"},
		{"shard 0", "getBlockHeader", `{"workchain":0,"shard":0,"seqno":1}`, 422, "shard: 0 is no shard"},
		{"shard too big", "getBlockHeader", `{"workchain":0,"shard":"99999999999999999999","seqno":1}`, 422, "shard:"},
		{"no seqno", "getBlockHeader", `{"workchain":0,"shard":"1"}`, 422, "seqno: required"},
		{"bad root hash", "getBlockHeader", `{` + blk + `,"root_hash":"zz"}`, 422, "root_hash:"},
		{"bad file hash", "getBlockHeader", `{` + blk + `,"file_hash":"zz"}`, 422, "file_hash:"},
		{"lookup by nothing", "lookupBlock", `{"workchain":0,"shard":"1"}`, 422, "give exactly one of seqno, lt, unixtime"},
		{"lookup by two", "lookupBlock", `{"workchain":0,"shard":"1","seqno":1,"lt":5}`, 422, "give exactly one"},
		{"lookup bad lt", "lookupBlock", `{"workchain":0,"shard":"1","lt":"x"}`, 422, "lt: must be an integer"},
		{"shards no seqno", "shards", `{}`, 422, "seqno: required"},
		{"count 0", "getBlockTransactions", `{` + blk + `,"count":0}`, 422, "count:"},
		{"count 1000", "getBlockTransactionsExt", `{` + blk + `,"count":1000}`, 422, "count:"},
		{"bad after_hash", "getBlockTransactions", `{` + blk + `,"after_hash":"x"}`, 422, "after_hash:"},
		{"no source", "tryLocateResultTx", `{"destination":"` + zeroAccount + `","created_lt":1}`, 422, "source: required"},
		{"bad destination", "tryLocateSourceTx", `{"source":"` + zeroAccount + `","destination":"x","created_lt":1}`, 422, "destination:"},
		{"no created_lt", "tryLocateTx", `{"source":"` + zeroAccount + `","destination":"` + zeroAccount + `"}`, 422, "created_lt: required"},
		{"no config_id", "getConfigParam", `{}`, 422, "config_id: required"},
		{"config seqno", "getConfigParam", `{"config_id":1,"seqno":5}`, 422, "seqno:"},
		{"detect nothing", "detectAddress", `{}`, 422, "address: required"},
		{"pack bad", "packAddress", `{"address":"0:zz"}`, 422, "address:"},
		{"unpack bad", "unpackAddress", `{"address":"EQnope"}`, 422, "address:"},
		{"query no body", "sendQuery", `{"address":"` + zeroAccount + `"}`, 422, "body: required"},
		{"query bad body", "sendQuery", `{"address":"` + zeroAccount + `","body":"!!"}`, 422, "body:"},
		{"query boc", "sendQuery", `{"boc":"te6cc"}`, 422, "boc: sendQuery takes"},
		{"query bad init_code", "sendQuery", `{"address":"` + zeroAccount + `","body":"te6cckEBAQEAAgAAAEysuc0=","init_code":"x"}`, 422, "init_code:"},
		// a good query, but no lite server to send it through
		{"query no lite", "sendQuery", `{"address":"` + zeroAccount + `","body":"te6cckEBAQEAAgAAAEysuc0="}`, 503, "no lite server is configured"},
		// tonlib's deprecated calls with cells as objects: packed, then as above
		{"simple no body", "sendQuerySimple", `{"address":"` + zeroAccount + `"}`, 422, "body: required"},
		{"simple body a string", "sendQuerySimple", `{"address":"` + zeroAccount + `","body":"te6cc"}`, 422, "body: must be a cell object"},
		{"simple bad bits", "sendQuerySimple", `{"address":"` + zeroAccount + `","body":{"data":{"b64":"AA==","len":9}}}`, 422, "body: data.len 9"},
		{"simple bad init_code", "sendQuerySimple", `{"address":"` + zeroAccount + `","body":` + emptyCell + `,"init_code":{"refs":[]}}`, 422, "init_code: a cell without data"},
		{"simple no lite", "sendQuerySimple", `{"address":"` + zeroAccount + `","body":` + emptyCell + `}`, 503, "no lite server is configured"},
	}
	for _, c := range cases {
		t.Run("rpc/"+c.method+"/"+c.name, func(t *testing.T) {
			rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(`7`, c.method, c.params))
			checkV2Error(t, rec, c.status, c.want, json.RawMessage(`7`))
		})
		t.Run("rest/"+c.method+"/"+c.name, func(t *testing.T) {
			if v2Posts[c.method] { // by POST with a JSON body, as toncenter has it
				checkV2ErrorAllow(t, doRequest(h, http.MethodPost, "/api/v2/"+c.method, c.params), c.status, c.want, "")
				return
			}
			var p map[string]any
			require.NoError(t, json.Unmarshal([]byte(c.params), &p))
			rec := doRequest(h, http.MethodGet, "/api/v2/"+c.method+"?"+query(p).Encode(), "")
			checkV2ErrorAllow(t, rec, c.status, c.want, "")
		})
	}
}
