package rest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
)

// TokenInfo is one token of an address as toncenter's v3 `metadata`
// object shows it (its model TokenInfo): every field but is_indexed's
// companion is optional there and here.
type TokenInfo struct {
	Valid       *bool          `json:"valid,omitempty"`
	Type        *string        `json:"type,omitempty"`
	Name        *string        `json:"name,omitempty"`
	Symbol      *string        `json:"symbol,omitempty"`
	Description *string        `json:"description,omitempty"`
	Image       *string        `json:"image,omitempty"`
	NftIndex    *string        `json:"nft_index,omitempty"`
	Extra       map[string]any `json:"extra,omitempty"`
}

// AddressMetadata is toncenter's per-address entry of `metadata`.
type AddressMetadata struct {
	IsIndexed bool        `json:"is_indexed"`
	TokenInfo []TokenInfo `json:"token_info"`
}

// Metadata is toncenter's `metadata` object: raw address -> its tokens.
type Metadata map[string]AddressMetadata

// toncenterTypes names our token kinds as toncenter's `type` does (its
// table names).
var toncenterTypes = map[string]string{
	chain.TokenJettonMaster:  "jetton_masters",
	chain.TokenNftCollection: "nft_collections",
	chain.TokenNftItem:       "nft_items",
}

// MetadataOf renders stored token metadata in toncenter's shape. A token
// not made yet is listed with its type alone (is_indexed false), as
// toncenter lists one it has not fetched. A made one shows every value
// known; extra carries the other attributes, the content's uri, the
// decimals of a jetton (TEP-64's 9 when the content states none) as the
// string toncenter gives, and, when not valid, the reason as `_reason`.
func MetadataOf(tokens map[string]chain.TokenMetadata) Metadata {
	out := make(Metadata, len(tokens))
	for addr, md := range tokens {
		info := TokenInfo{Type: ptr(toncenterTypes[md.Kind])}
		if md.FetchedAt != nil {
			info.Valid = ptr(md.Valid)
			info.Name, info.Symbol, info.Description, info.Image = md.Name, md.Symbol, md.Description, md.Image
			extra := map[string]any{}
			if len(md.Extra) > 0 {
				_ = json.Unmarshal(md.Extra, &extra) // written by the worker as an object
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
				info.Extra = extra
			}
		}
		out[addr] = AddressMetadata{IsIndexed: md.FetchedAt != nil, TokenInfo: []TokenInfo{info}}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// metadataParams are the query parameters /api/v3/metadata takes (the key
// parameter is taken out before routes see the URL).
var metadataParams = map[string]bool{"address": true}

// MetadataRoute serves GET /api/v3/metadata?address=...: toncenter's
// route, each address given as its own parameter (or comma-separated),
// at most 1024. It reads what the metadata worker stored and never waits
// for a fetch.
func MetadataRoute(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET", r.Method))
			return
		}
		q := r.URL.Query()
		if err := onlyParams(q, metadataParams); err != nil {
			WriteError(w, r, V3, err)
			return
		}
		tokens, err := res.TokenMetadata(r.Context(), splitList(q["address"]))
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		WriteJSON(w, MetadataOf(tokens))
	}
}

// onlyParams refuses a query parameter the route does not take: silently
// ignoring it would answer another question than the one asked.
func onlyParams(q url.Values, known map[string]bool) error {
	for name := range q {
		if !known[name] {
			return apperr.Field(name, "is not a parameter of this route")
		}
	}
	return nil
}

// splitList reads a repeated parameter whose values may also be
// comma-separated; empty items are dropped.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
