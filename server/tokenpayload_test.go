package server_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// commentByTongo reads a payload (base64 BOC) as a text comment with
// tongo: op 0, then the snake text; ok false for anything else.
func commentByTongo(t *testing.T, b64 string) (string, bool) {
	cells, err := boc.DeserializeBocBase64(b64)
	require.NoError(t, err, b64)
	c := cells[0]
	if c.BitsAvailableForRead() < 32 {
		return "", false
	}
	op, err := c.ReadUint(32)
	require.NoError(t, err)
	if op != 0 {
		return "", false
	}
	var text tlb.Text
	require.NoError(t, tlb.Unmarshal(c, &text))
	return string(text), true
}

// TestTokenMovesDecodePayloads: on the fee-replay block and toncenter's
// traces, on SQLite and Postgres, decoded_forward_payload and
// decoded_custom_payload of /jetton/transfers and /nft/transfers (and
// /jetton/burns' custom one) are toncenter's text_comment object exactly
// when the payload is a text comment (read here with tongo), with its
// text, and null otherwise.
func TestTokenMovesDecodePayloads(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := importedTokens(t, db)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			comments, others := 0, 0
			for _, route := range []struct{ path, key string }{
				{"/api/v3/jetton/transfers?limit=1000", "jetton_transfers"},
				{"/api/v3/jetton/burns?limit=1000", "jetton_burns"},
				{"/api/v3/nft/transfers?limit=1000", "nft_transfers"},
			} {
				for _, r := range listOf(t, h, route.path, route.key) {
					for _, f := range []string{"forward_payload", "custom_payload"} {
						decoded, has := r["decoded_"+f]
						if _, ok := r[f]; !ok {
							continue
						}
						require.True(t, has, "%s has %s without decoded_%s", route.key, f, f)
						payload, _ := r[f].(string)
						text, isComment := "", false
						if payload != "" {
							text, isComment = commentByTongo(t, payload)
						}
						if !isComment || !utf8.ValidString(text) {
							if payload != "" {
								others++
							}
							if !isComment {
								require.Nil(t, decoded, "%s %s: %s", route.key, f, payload)
							}
							continue
						}
						comments++
						want, err := json.Marshal(map[string]string{"@type": "text_comment", "type": "text_comment", "comment": text})
						require.NoError(t, err)
						got, err := json.Marshal(decoded)
						require.NoError(t, err)
						require.JSONEq(t, string(want), string(got))
					}
				}
			}
			t.Logf("%d text comments, %d other payloads", comments, others)
			require.Positive(t, comments, "the fixtures carry comment payloads")
			require.Positive(t, others, "and other payloads")
		})
	}
}
