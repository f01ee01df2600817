package chain

import (
	"encoding/json"
	"io"
	"strconv"
)

// TokenInfo is one token of an address as toncenter's v3 `metadata`
// object shows it (its model TokenInfo): every field is optional there
// and here.
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
// Every answer that names tokens carries one (/api/v3/actions, stream
// events, previews, /api/v3/metadata, the token routes); an address that
// is no token the store knows is absent, as toncenter omits one its token
// tables do not hold.
type Metadata map[string]AddressMetadata

// MarshalGQL makes Metadata a gqlgen scalar identical to the REST JSON
// (never null: no tokens is {}).
func (m Metadata) MarshalGQL(w io.Writer) {
	_, _ = w.Write(m.AppendJSON(nil))
}

// UnmarshalGQL: Metadata is an output type only.
func (m *Metadata) UnmarshalGQL(any) error { return errNotInput }

// MarshalJSON writes the object, {} when nil.
func (m Metadata) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// AppendJSON appends the object as json.Marshal writes the plain map, {}
// when nil.
func (m Metadata) AppendJSON(b []byte) []byte {
	if len(m) == 0 {
		return append(b, "{}"...)
	}
	j, err := json.Marshal(map[string]AddressMetadata(m))
	if err != nil {
		panic(err) // strings, bools and JSON values decoded from JSON always marshal
	}
	return append(b, j...)
}

// toncenterTokenTypes names our token kinds as toncenter's `type` does
// (its table names).
var toncenterTokenTypes = map[string]string{
	TokenJettonMaster:  "jetton_masters",
	TokenNftCollection: "nft_collections",
	TokenNftItem:       "nft_items",
}

// MetadataOf renders stored token metadata in toncenter's shape. A token
// not made yet is listed with its type alone (is_indexed false), as
// toncenter lists one it has not fetched. A made one shows every value
// known; extra carries the other attributes, the content's uri, the
// decimals of a jetton (TEP-64's 9 when the content states none) as the
// string toncenter gives, and, when not valid, the reason as `_reason`.
// The result is never nil.
func MetadataOf(tokens map[string]TokenMetadata) Metadata {
	out := make(Metadata, len(tokens))
	for addr, md := range tokens {
		out[addr] = md.addressMetadata()
	}
	return out
}

// MetadataOfFacts is the metadata object of addrs from their facts: the
// addresses whose facts carry a token, each once.
func MetadataOfFacts(addrs []string, facts map[string]AddressFacts) Metadata {
	out := Metadata{}
	for _, a := range addrs {
		if f, ok := facts[a]; ok && f.Token != nil {
			out[a] = f.Token.addressMetadata()
		}
	}
	return out
}

// Only is the part of m that names one of addrs (never nil).
func (m Metadata) Only(addrs []string) Metadata {
	out := Metadata{}
	for _, a := range addrs {
		if e, ok := m[a]; ok {
			out[a] = e
		}
	}
	return out
}

func (md *TokenMetadata) addressMetadata() AddressMetadata {
	typ := toncenterTokenTypes[md.Kind]
	info := TokenInfo{Type: &typ}
	if md.FetchedAt != nil {
		valid := md.Valid
		info.Valid = &valid
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
	return AddressMetadata{IsIndexed: md.FetchedAt != nil, TokenInfo: []TokenInfo{info}}
}
