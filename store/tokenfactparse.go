package store

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tonql/tonql/chain"
)

// parseTokenFact reads a rowToken fact's text (the flat JSON object of
// tokenFactColumns, as json_build_object or json_object writes it) into
// the token's metadata. It is read without reflection: a page whose book
// is all tokens parsed 24 objects per page with encoding/json, a quarter
// of the uncached page's CPU and 40 allocations a token
// (docs/PERFORMANCE.md). Strings without escapes are slices of text.
func parseTokenFact(addr, text string) (*chain.TokenMetadata, error) {
	// One allocation for the token and its values, not one per field.
	h := &factHolder{md: chain.TokenMetadata{Address: addr}}
	md := &h.md
	p := factParser{s: text}
	p.space()
	if !p.take('{') {
		return nil, errBadFact
	}
	p.space()
	if p.take('}') {
		return md, nil
	}
	for {
		key, ok, err := p.value()
		if err != nil || !ok {
			return nil, errBadFact
		}
		p.space()
		if !p.take(':') {
			return nil, errBadFact
		}
		v, isStr, err := p.value()
		if err != nil {
			return nil, err
		}
		if err := h.set(key, v, isStr, v == "null" && !isStr); err != nil {
			return nil, err
		}
		p.space()
		if p.take('}') {
			return md, nil
		}
		if !p.take(',') {
			return nil, errBadFact
		}
	}
}

var errBadFact = errors.New("token fact: not the object tokenFactColumns writes")

// factHolder is a token's metadata with room for the values its
// pointers point to.
type factHolder struct {
	md                                    chain.TokenMetadata
	name, symbol, image, description, uri string
	decimals                              int
	fetchedAt                             time.Time
}

// set sets the field key to v (a string when isStr, else a literal: a
// number or null).
func (h *factHolder) set(key, v string, isStr, null bool) error {
	md := &h.md
	str := func(to *string) *string {
		if null {
			return nil
		}
		*to = v
		return to
	}
	switch key {
	case "kind":
		md.Kind = v
	case "reason":
		if !null {
			md.Reason = v
		}
	case "name":
		md.Name = str(&h.name)
	case "symbol":
		md.Symbol = str(&h.symbol)
	case "image":
		md.Image = str(&h.image)
	case "description":
		md.Description = str(&h.description)
	case "uri":
		md.URI = str(&h.uri)
	case "extra":
		if !null {
			md.Extra = json.RawMessage(v)
		}
	case "valid", "decimals", "fetched_at":
		if null {
			return nil
		}
		if isStr {
			return errBadFact
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		switch key {
		case "valid":
			md.Valid = n != 0
		case "decimals":
			h.decimals = int(n)
			md.Decimals = &h.decimals
		default:
			h.fetchedAt = time.UnixMilli(n).UTC()
			md.FetchedAt = &h.fetchedAt
		}
	}
	return nil
}

// factParser walks one flat JSON object.
type factParser struct {
	s string
	i int
}

func (p *factParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *factParser) take(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// value reads a string (unescaped; isStr) or a literal (a number, null,
// true or false, as written).
func (p *factParser) value() (v string, isStr bool, err error) {
	p.space()
	if p.take('"') {
		start, escaped := p.i, false
		for p.i < len(p.s) {
			switch p.s[p.i] {
			case '\\':
				escaped = true
				p.i += 2
				continue
			case '"':
				raw := p.s[start:p.i]
				p.i++
				if !escaped {
					return raw, true, nil
				}
				v, err := unescapeJSON(raw)
				return v, true, err
			}
			p.i++
		}
		return "", false, errBadFact
	}
	start := p.i
	for p.i < len(p.s) && strings.IndexByte(",} \n\t\r", p.s[p.i]) < 0 {
		p.i++
	}
	if p.i == start {
		return "", false, errBadFact
	}
	return p.s[start:p.i], false, nil
}

// unescapeJSON decodes the escapes of a JSON string's inside.
func unescapeJSON(s string) (string, error) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", errBadFact
		}
		switch s[i] {
		case '"', '\\', '/':
			b.WriteByte(s[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s, i+1)
			if !ok {
				return "", errBadFact
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// A pair is one character; a lone half is U+FFFD, as
				// encoding/json reads it.
				if r2, ok := hex4(s, i+3); ok && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			return "", errBadFact
		}
	}
	return b.String(), nil
}

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s[i:i+4], 16, 32)
	return rune(n), err == nil
}
