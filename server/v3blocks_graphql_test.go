package server_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// blockFields are every field of GraphQL's Block, which binds the same
// struct GET /api/v3/blocks writes.
const blockFields = `workchain shard seqno root_hash file_hash global_id version after_merge before_split after_split
	want_merge want_split key_block vert_seqno_incr flags gen_utime start_lt end_lt validator_list_hash_short
	gen_catchain_seqno min_ref_mc_seqno prev_key_block_seqno vert_seqno master_ref_seqno rand_seed created_by
	tx_count masterchain_block_ref { workchain shard seqno } prev_blocks { workchain shard seqno }`

// TestGraphQLBlocksEqualREST: GraphQL's blocks, block and masterchainInfo
// over the imported raw blocks answer what /api/v3/blocks and
// /masterchainInfo answer for the same filters, field for field (JSON
// equal), on SQLite and Postgres; bad arguments are errors naming them.
func TestGraphQLBlocksEqualREST(t *testing.T) {
	want := readFileBlocks(t)
	if len(want) == 0 {
		t.Skip("no block fixtures")
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			h := importBlocks(t, db)
			f := &fixture{h: h}
			gql := func(query string) json.RawMessage {
				var out struct {
					Data   map[string]json.RawMessage `json:"data"`
					Errors []any                      `json:"errors"`
				}
				require.NoError(t, json.Unmarshal(f.graphql(t, query, nil), &out))
				require.Empty(t, out.Errors, query)
				return out.Data["x"]
			}
			mid := want[len(want)/2]
			for rest, filter := range map[string]string{
				"limit=1000&sort=asc":     `limit: 1000, sort: asc`,
				"limit=1000":              `limit: 1000`,
				"limit=2&offset=1":        `limit: 2, offset: 1`,
				"workchain=-1&limit=1000": `filter: {workchain: -1}, limit: 1000`,
				fmt.Sprintf("workchain=%d&shard=%s&seqno=%d", mid.workchain, mid.shard, mid.seqno): fmt.Sprintf(`filter: {workchain: %d, shard: "%s", seqno: %d}`, mid.workchain, mid.shard, mid.seqno),
				fmt.Sprintf("start_utime=%d&limit=1000", mid.genUtime):                             fmt.Sprintf(`filter: {start_utime: %d}, limit: 1000`, mid.genUtime),
				fmt.Sprintf("end_lt=%d&limit=1000", mid.startLt):                                   fmt.Sprintf(`filter: {end_lt: %d}, limit: 1000`, mid.startLt),
				"root_hash=" + mid.rootHash:                                                        fmt.Sprintf(`filter: {root_hash: "%s"}`, mid.rootHash),
				"file_hash=" + mid.fileHash:                                                        fmt.Sprintf(`filter: {file_hash: "%s"}`, mid.fileHash),
			} {
				var r struct {
					Blocks json.RawMessage `json:"blocks"`
				}
				require.Equal(t, 200, v3get(t, h, "/api/v3/blocks?"+queryEscapeValues(rest), &r), rest)
				require.JSONEq(t, string(r.Blocks), string(gql(`{ x: blocks(`+filter+`) { `+blockFields+` } }`)), rest)
				require.NotEqual(t, "[]", string(r.Blocks), rest)
			}
			for _, b := range want {
				var r struct {
					Blocks []json.RawMessage `json:"blocks"`
				}
				require.Equal(t, 200, v3get(t, h, fmt.Sprintf("/api/v3/blocks?workchain=%d&shard=%s&seqno=%d", b.workchain, b.shard, b.seqno), &r))
				require.Len(t, r.Blocks, 1)
				require.JSONEq(t, string(r.Blocks[0]), string(gql(fmt.Sprintf(`{ x: block(workchain: %d, shard: "%s", seqno: %d) { %s } }`,
					b.workchain, b.shard, b.seqno, blockFields))))
			}
			require.Equal(t, "null", string(gql(`{ x: block(workchain: 0, shard: "8000000000000000", seqno: 1) { seqno } }`)))
			var info json.RawMessage
			require.Equal(t, 200, v3get(t, h, "/api/v3/masterchainInfo", &info))
			require.JSONEq(t, string(info), string(gql(`{ x: masterchainInfo { last { `+blockFields+` } first { `+blockFields+` } } }`)))

			for query, field := range map[string]string{
				`{ blocks(filter: {shard: "8000000000000000"}) { seqno } }`:  "shard",
				`{ blocks(filter: {workchain: 0, shard: "zz"}) { seqno } }`:  "shard",
				`{ blocks(filter: {workchain: 0, seqno: 5}) { seqno } }`:     "seqno",
				`{ blocks(filter: {root_hash: "abc"}) { seqno } }`:           "root_hash",
				`{ blocks(limit: 0) { seqno } }`:                             "limit",
				`{ blocks(offset: 10001) { seqno } }`:                        "offset",
				`{ block(workchain: 0, shard: "nope", seqno: 1) { seqno } }`: "shard",
				`{ blocks(filter: {workchain: 99999999999}) { seqno } }`:     "workchain",
			} {
				body := string(f.graphql(t, query, nil))
				require.Contains(t, body, `"errors"`, query)
				require.Contains(t, body, field, query)
			}
		})
	}
}

// queryEscapeValues encodes "k=v&k=v" whose values may hold base64's + / =.
func queryEscapeValues(s string) string {
	q := url.Values{}
	for _, kv := range strings.Split(s, "&") {
		k, v, _ := strings.Cut(kv, "=")
		q.Add(k, v)
	}
	return q.Encode()
}
