package metadata

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/tonql/tonql/chain"
)

// DefaultDecimals is TEP-64's decimals of a jetton whose content names
// none.
const DefaultDecimals = 9

// Reasons a token's metadata is not valid that come from its content
// (fetch failures have their own, see FetchError).
const (
	ReasonBadContent      = "bad_content"      // the content cell is not TEP-64 content
	ReasonInvalidDecimals = "invalid_decimals" // decimals not a whole number in 0..255
	ReasonPending         = "pending"          // enqueued, not made yet
)

// ErrDecimals is ParseDecimals' error.
var ErrDecimals = errors.New("decimals must be a whole number from 0 to 255")

// ParseDecimals reads a decimals attribute: TEP-64 makes it a UTF-8
// string holding a number from 0 to 255; off-chain JSON also writes it as
// a JSON number. Surrounding spaces and NUL padding are ignored (slips
// that change no meaning); signs, fractions, exponents and anything else
// are not a number of decimals.
func ParseDecimals(v any) (int, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = strings.Trim(x, " \t\r\n\x00")
	case json.Number:
		s = x.String()
	default:
		return 0, ErrDecimals
	}
	if s == "" || len(s) > 3 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, ErrDecimals
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 255 {
		return 0, ErrDecimals
	}
	return n, nil
}

// columns are the attributes TokenMetadata holds in fields of their own;
// every other attribute goes to Extra.
var columns = map[string]bool{"name": true, "symbol": true, "description": true, "image": true}

// Merge makes a token's metadata values from its parsed content and, for
// content that links off-chain JSON, the fetched object (nil when there is
// none or it could not be fetched). As TEP-64 says for semi-chain content,
// an attribute present on chain wins over the same attribute off chain.
// It sets md's values, Source, Valid and Reason; when offchainFailure is
// not "", the off-chain part is missing for that reason and md is not
// valid.
func Merge(md *chain.TokenMetadata, c *Content, doc map[string]any, offchainFailure string) {
	attrs := maps.Clone(doc)
	if attrs == nil {
		attrs = map[string]any{}
	}
	for k, v := range c.Attrs {
		attrs[k] = v
	}
	md.Source = c.Layout
	md.Name, md.Symbol, md.Description, md.Image, md.URI, md.Decimals = nil, nil, nil, nil, nil, nil
	if c.URI != "" {
		md.URI = ptr(text(c.URI))
	}
	extra := map[string]any{}
	for k, v := range attrs {
		s, isString := v.(string)
		s = text(s)
		switch {
		case columns[k] && isString:
			switch k {
			case "name":
				md.Name = ptr(s)
			case "symbol":
				md.Symbol = ptr(s)
			case "description":
				md.Description = ptr(s)
			case "image":
				md.Image = ptr(s)
			}
		case k == "decimals" && md.Kind == chain.TokenJettonMaster:
			// read below
		default:
			// A non-string name (a number, an object) is kept as it is,
			// where toncenter keeps it too.
			extra[k] = v
		}
	}
	if len(c.Unknown) > 0 {
		extra["_unknown_attributes"] = c.Unknown
	}
	if len(c.Skipped) > 0 {
		extra["_skipped_attributes"] = c.Skipped
	}
	md.Extra = nil
	if len(extra) > 0 {
		// Values come from JSON decoding or are strings: they marshal.
		md.Extra, _ = json.Marshal(extra)
	}
	md.Valid, md.Reason = true, ""
	if md.Kind == chain.TokenJettonMaster {
		v, stated := attrs["decimals"]
		switch {
		case !stated && offchainFailure != "":
			// The missing JSON may state decimals: 9 could be a wrong
			// number, so none is given until it is fetched.
		case !stated:
			md.Decimals = ptr(DefaultDecimals)
		default:
			n, err := ParseDecimals(v)
			if err != nil {
				md.Valid, md.Reason = false, ReasonInvalidDecimals
				extra["decimals"] = v
				md.Extra, _ = json.Marshal(extra)
			} else {
				md.Decimals = ptr(n)
			}
		}
	}
	if offchainFailure != "" {
		md.Valid, md.Reason = false, offchainFailure
	}
}

func ptr[T any](v T) *T { return &v }

// text is a value as a text column stores it: without NUL characters,
// which some contracts pad their strings with and Postgres cannot hold
// in text (in Extra, JSON escapes them).
func text(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}

// NewTokenContent makes the worker's input for a token: its address (any
// form), kind and content cell as a BOC with one root. It checks the
// kind and the BOC and computes the content hash (the cell's
// representation hash, so the same cell serialized differently is the
// same content); whether the content is valid TEP-64 is the worker's to
// find out and store.
func NewTokenContent(address, kind string, content []byte) (chain.TokenContent, error) {
	raw, err := chain.NormalizeAddress(address)
	if err != nil {
		return chain.TokenContent{}, fmt.Errorf("address: %w", err)
	}
	if !chain.ValidTokenKind(kind) {
		return chain.TokenContent{}, fmt.Errorf("kind %q is not a token kind", kind)
	}
	if len(content) > MaxContentBytes {
		return chain.TokenContent{}, fmt.Errorf("content: BOC of %d bytes, more than %d", len(content), MaxContentBytes)
	}
	root, err := chain.DecodeRoot(content)
	if err != nil {
		return chain.TokenContent{}, fmt.Errorf("content: %w", err)
	}
	h, err := chain.CellHash(root)
	if err != nil {
		return chain.TokenContent{}, fmt.Errorf("content: %w", err)
	}
	return chain.TokenContent{Address: raw, Kind: kind, ContentHash: h, Content: content}, nil
}
