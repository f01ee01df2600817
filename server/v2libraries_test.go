package server_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// fixtureLibraries are the keys of the fee-replay file's library
// dictionary, decoded here with tongo (not through the server's code).
func fixtureLibraries(t *testing.T) []string {
	raw, err := os.ReadFile(testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	require.NoError(t, err)
	var file struct {
		Config struct {
			Libraries []string `json:"libraries_boc_base64"` // a list of one
		} `json:"config"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	require.Len(t, file.Config.Libraries, 1)
	cells, err := boc.DeserializeBocBase64(file.Config.Libraries[0])
	require.NoError(t, err)
	var dict tlb.Hashmap[tlb.Bits256, tlb.Ref[boc.Cell]]
	require.NoError(t, tlb.Unmarshal(cells[0], &dict))
	var keys []string
	for _, k := range dict.Keys() {
		keys = append(keys, hex.EncodeToString(k[:]))
	}
	require.Greater(t, len(keys), 3)
	return keys
}

// TestV2GetLibraries asks for library cells of the stored config by hash,
// over JSON-RPC and GET (repeated libraries parameters, as ton-http-api
// takes them), on SQLite and Postgres: each answer's cell hashes to the
// hash asked for, hex and base64 hashes name the same library, an unknown
// hash is left out (tonlib's answer), and bad input is a 422 naming it.
func TestV2GetLibraries(t *testing.T) {
	keys := fixtureLibraries(t)
	unknown := sha256.Sum256([]byte("no such library"))
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: r.st}})
			b0, _ := hex.DecodeString(keys[0])
			asked := []string{keys[0], hex.EncodeToString(unknown[:]), keys[2], base64.StdEncoding.EncodeToString(b0)}
			res := rpc(t, h, "getLibraries", map[string]any{"libraries": asked})
			var out struct {
				Type   string `json:"@type"`
				Result []struct {
					Type string `json:"@type"`
					Hash string `json:"hash"`
					Data string `json:"data"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(res, &out))
			require.Equal(t, "smc.libraryResult", out.Type)
			require.Len(t, out.Result, 2, "the unknown one left out, the repeated one once")
			for i, want := range []string{keys[0], keys[2]} {
				e := out.Result[i]
				require.Equal(t, "smc.libraryEntry", e.Type)
				wantHash, _ := hex.DecodeString(want)
				require.Equal(t, base64.StdEncoding.EncodeToString(wantHash), e.Hash)
				cells, err := boc.DeserializeBocBase64(e.Data)
				require.NoError(t, err)
				got, err := cells[0].Hash()
				require.NoError(t, err)
				require.Equal(t, want, hex.EncodeToString(got), "the cell is the library named")
			}
			q := url.Values{"libraries": asked}
			sameAsREST(t, h, "getLibraries", res, q)

			none := rpc(t, h, "getLibraries", map[string]any{"libraries": []string{hex.EncodeToString(unknown[:])}})
			require.JSONEq(t, `[]`, string(mustField(t, none, "result")))

			many := make([]string, 17)
			for i := range many {
				many[i] = keys[0]
			}
			for _, c := range []struct{ name, query, want string }{
				{"none", "", "libraries: required"},
				{"bad hash", "libraries=zz", "libraries: \"zz\""},
				{"short hash", "libraries=" + strings.Repeat("ab", 31), "libraries:"},
				{"too many", url.Values{"libraries": many}.Encode(), "libraries: at most 16"},
				{"unknown parameter", "libraries=" + keys[0] + "&librarys=" + keys[1], "librarys: is not a parameter"},
			} {
				t.Run(c.name, func(t *testing.T) {
					rec := doRequest(h, http.MethodGet, "/api/v2/getLibraries?"+c.query, "")
					checkV2ErrorAllow(t, rec, 422, c.want, "")
				})
			}
			rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(`3`, "getLibraries", `{"libraries":[1]}`))
			checkV2Error(t, rec, 422, "libraries: must be a list of hashes", json.RawMessage(`3`))
		})
	}
}

func mustField(t *testing.T, raw json.RawMessage, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	return m[name]
}
