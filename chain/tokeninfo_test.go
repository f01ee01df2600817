package chain

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The metadata object written by hand reads back as toncenter's model,
// built here from the token's fields with encoding/json: pending, made
// and valid with every field, made and invalid, no extra, an empty extra
// object, and strings that need escaping.
func TestMetadataJSON(t *testing.T) {
	s := func(v string) *string { return &v }
	at := time.Unix(1_700_000_000, 0)
	nine := 9
	tokens := map[string]TokenMetadata{
		"0:01": {Kind: TokenJettonMaster, Reason: "pending"},
		"0:02": {Kind: TokenJettonMaster, Valid: true, Name: s(`Ton "staked" <b>`), Symbol: s("tsTON"), Decimals: &nine,
			Image: s("https://i/ü.png"), Description: s("line\nbreak"), URI: s("https://u"),
			Extra: json.RawMessage(` {"social":["x"],"n":1} `), FetchedAt: &at},
		"0:03": {Kind: TokenNftItem, Reason: "timeout", Name: s("kept"), FetchedAt: &at},
		"0:04": {Kind: TokenNftCollection, Valid: true, FetchedAt: &at},
		"0:05": {Kind: TokenNftCollection, Valid: true, Extra: json.RawMessage(`{}`), FetchedAt: &at},
	}
	want := map[string]any{}
	for addr, md := range tokens {
		info := map[string]any{"type": toncenterTokenTypes[md.Kind]}
		if md.FetchedAt != nil {
			info["valid"] = md.Valid
			for k, v := range map[string]*string{"name": md.Name, "symbol": md.Symbol, "description": md.Description, "image": md.Image} {
				if v != nil {
					info[k] = *v
				}
			}
			extra := map[string]any{}
			if len(md.Extra) > 0 {
				require.NoError(t, json.Unmarshal(md.Extra, &extra))
			}
			if md.URI != nil {
				extra["uri"] = *md.URI
			}
			if md.Decimals != nil {
				extra["decimals"] = strconv.Itoa(*md.Decimals)
			}
			if !md.Valid {
				extra["_reason"] = md.Reason
			}
			if len(extra) > 0 {
				info["extra"] = extra
			}
		}
		want[addr] = map[string]any{"is_indexed": md.FetchedAt != nil, "token_info": []any{info}}
	}
	raw, err := json.Marshal(MetadataOf(tokens))
	require.NoError(t, err)
	require.True(t, json.Valid(raw), string(raw))
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	wantJSON, _ := json.Marshal(want)
	var norm map[string]any
	require.NoError(t, json.Unmarshal(wantJSON, &norm))
	require.Equal(t, norm, got)

	require.Equal(t, "{}", string(Metadata(nil).AppendJSON(nil)))
}
