package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

// referenceFact reads a fact's text with encoding/json: what the
// hand-written parser must equal.
func referenceFact(t *testing.T, addr, text string) *chain.TokenMetadata {
	var f struct {
		Kind        string  `json:"kind"`
		Valid       int     `json:"valid"`
		Reason      *string `json:"reason"`
		Name        *string `json:"name"`
		Symbol      *string `json:"symbol"`
		Decimals    *int    `json:"decimals"`
		Image       *string `json:"image"`
		Description *string `json:"description"`
		URI         *string `json:"uri"`
		Extra       *string `json:"extra"`
		FetchedAt   *int64  `json:"fetched_at"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &f), text)
	md := &chain.TokenMetadata{Address: addr, Kind: f.Kind, Valid: f.Valid != 0, Name: f.Name, Symbol: f.Symbol,
		Decimals: f.Decimals, Image: f.Image, Description: f.Description, URI: f.URI, FetchedAt: timePtr(f.FetchedAt)}
	if f.Reason != nil {
		md.Reason = *f.Reason
	}
	if f.Extra != nil {
		md.Extra = json.RawMessage(*f.Extra)
	}
	return md
}

// The parser reads what both dialects write (Postgres spaces its
// separators; SQLite does not) equal to encoding/json, escapes included:
// quotes, backslashes, control characters, \/, a surrogate pair and lone
// surrogate halves (U+FFFD, as encoding/json reads them), nulls.
func TestParseTokenFactEqualsEncodingJSON(t *testing.T) {
	const addr = "0:AB"
	strs := []string{"", "tsTON", `Tonstakers "TON"`, `a\b`, "ü <b> \u2028", "line\nbreak\ttab\x01", "😀 emoji"}
	var texts []string
	for _, s := range strs {
		q, err := json.Marshal(s)
		require.NoError(t, err)
		extra, err := json.Marshal(`{"social":[` + string(q) + `],"n":1}`)
		require.NoError(t, err)
		texts = append(texts,
			`{"kind":"jetton_master","valid":1,"reason":"","name":`+string(q)+`,"symbol":null,"decimals":6,"image":`+string(q)+
				`,"description":null,"uri":"https:\/\/u","extra":`+string(extra)+`,"fetched_at":1764370000123}`,
			`{"kind" : "nft_item", "valid" : 0, "reason" : `+string(q)+`, "name" : null, "symbol" : `+string(q)+
				`, "decimals" : null, "image" : null, "description" : `+string(q)+`, "uri" : null, "extra" : null, "fetched_at" : null}`)
	}
	texts = append(texts, `{"kind":"x","name":"\ud83d\ude00\ud83d","symbol":"\ude00a","image":"\ud83dx\u00e9"}`, `{}`, ` { "kind" : "x" } `)
	for _, text := range texts {
		got, err := parseTokenFact(addr, text)
		require.NoError(t, err, text)
		require.Equal(t, referenceFact(t, addr, text), got, text)
	}
	for _, bad := range []string{"", "{", `{"kind"}`, `{"kind":"x"`, `{"kind":"x",}`, `{"valid":"1"}`, `{"name":"\x"}`,
		`{"name":"\u12"}`, `{"decimals":1.5}`, `[]`, strings.Repeat("{", 3)} {
		_, err := parseTokenFact(addr, bad)
		require.Error(t, err, bad)
	}
}
