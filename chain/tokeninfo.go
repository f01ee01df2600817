package chain

import (
	"bytes"
	"io"
	"slices"
	"strconv"
)

// Metadata is toncenter's `metadata` object: raw address -> its tokens
// ({is_indexed, token_info: [TokenInfo]}, the models of ton-index-go).
// Every answer that names tokens carries one (/api/v3/actions, stream
// events, previews, /api/v3/metadata); an address that is no token the
// store knows is absent, as toncenter omits one its token tables do not
// hold. It is written by hand (AppendJSON): a page's tokens are rendered
// with every page, and encoding/json's reflection over the extra
// attributes cost more than the rest of the page (docs/PERFORMANCE.md).
type Metadata map[string]*TokenMetadata

// MarshalGQL makes Metadata a gqlgen scalar identical to the REST JSON
// (never null: no tokens is {}).
func (m Metadata) MarshalGQL(w io.Writer) {
	_, _ = w.Write(m.AppendJSON(nil))
}

// UnmarshalGQL: Metadata is an output type only.
func (m *Metadata) UnmarshalGQL(any) error { return errNotInput }

// MarshalJSON writes the object, {} when nil.
func (m Metadata) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// toncenterTokenTypes names our token kinds as toncenter's `type` does
// (its table names).
var toncenterTokenTypes = map[string]string{
	TokenJettonMaster:  "jetton_masters",
	TokenNftCollection: "nft_collections",
	TokenNftItem:       "nft_items",
}

// AppendJSON appends the object, keys sorted, {} when empty. A token not
// made yet is listed with its type alone (is_indexed false), as toncenter
// lists one it has not fetched. A made one shows every value known; extra
// carries the other attributes (as stored), then the content's uri, the
// decimals of a jetton (TEP-64's 9 when the content states none) as the
// string toncenter gives, and, when not valid, the reason as `_reason`.
func (m Metadata) AppendJSON(b []byte) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, k)
		b = append(b, ':')
		b = m[k].appendEntry(b)
	}
	return append(b, '}')
}

func (md *TokenMetadata) appendEntry(b []byte) []byte {
	if md.entry != nil {
		return append(b, md.entry...)
	}
	made := md.FetchedAt != nil
	b = append(b, `{"is_indexed":`...)
	b = strconv.AppendBool(b, made)
	b = append(b, `,"token_info":[{`...)
	if made {
		b = append(b, `"valid":`...)
		b = strconv.AppendBool(b, md.Valid)
		b = append(b, ',')
	}
	b = append(b, `"type":`...)
	b = AppendJSONString(b, toncenterTokenTypes[md.Kind])
	if !made {
		return append(b, "}]}"...)
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"name", md.Name}, {"symbol", md.Symbol}, {"description", md.Description}, {"image", md.Image}} {
		if f.v != nil {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":`...)
			b = AppendJSONString(b, *f.v)
		}
	}
	n := len(b)
	b = append(b, `,"extra":{`...)
	start := len(b)
	if inner := objectBody(md.Extra); len(inner) > 0 {
		b = append(b, inner...)
	}
	field := func(name, v string) {
		if len(b) > start {
			b = append(b, ',')
		}
		b = AppendJSONString(b, name)
		b = append(b, ':')
		b = AppendJSONString(b, v)
	}
	if md.URI != nil {
		field("uri", *md.URI)
	}
	if md.Decimals != nil {
		field("decimals", strconv.Itoa(*md.Decimals))
	}
	if !md.Valid {
		field("_reason", md.Reason)
	}
	if len(b) == start {
		b = b[:n] // no extra: omitted, as toncenter omits an empty one
	} else {
		b = append(b, '}')
	}
	return append(b, "}]}"...)
}

// objectBody is what lies between the braces of a JSON object (the
// stored extra attributes, which the metadata worker writes as one
// object); nil for anything else.
func objectBody(obj []byte) []byte {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil
	}
	return bytes.TrimSpace(obj[1 : len(obj)-1])
}

// MetadataOf is the metadata object of stored tokens (never nil).
func MetadataOf(tokens map[string]TokenMetadata) Metadata {
	out := make(Metadata, len(tokens))
	for addr := range tokens {
		md := tokens[addr]
		out[addr] = &md
	}
	return out
}

// MetadataOfFacts is the metadata object of addrs from their facts: the
// addresses whose facts carry a token, each once.
func MetadataOfFacts(addrs []string, facts map[string]AddressFacts) Metadata {
	out := Metadata{}
	for _, a := range addrs {
		if f, ok := facts[a]; ok && f.Token != nil {
			out[a] = f.Token
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
