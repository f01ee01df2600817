// Package toncenter is the toncenter v3 dialect: its response shapes and
// its query parameters, kept apart from the domain (DESIGN.md) so our own
// shapes and theirs never blur. It parses and renders; it reads nothing.
package toncenter

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// Ignored are the query parameters a route accepts without using them:
// api_key (the key is taken from the URL before routes see it, but a key
// in the query of a personal endpoint is still the client's own), and
// nothing else yet. Anything else a route does not take answers 422
// naming it: a misspelt filter must never return everyone's rows.
var Ignored = map[string]bool{"api_key": true}

// DefaultLimit and MaxLimit are toncenter's paging bounds.
const (
	DefaultLimit = 10
	MaxLimit     = 1000
)

// Params are a request's query parameters, checked against the names its
// route takes.
type Params struct {
	v url.Values
}

// Parse refuses any parameter not in known (nor Ignored).
func Parse(v url.Values, known ...string) (*Params, error) {
	for name := range v {
		if Ignored[name] || slices.Contains(known, name) {
			continue
		}
		return nil, apperr.Field(name, "is not a parameter of this route")
	}
	return &Params{v: v}, nil
}

// Has reports a parameter given with a non-empty value.
func (p *Params) Has(name string) bool {
	for _, s := range p.v[name] {
		if s != "" {
			return true
		}
	}
	return false
}

// Str is a parameter given at most once; nil when absent or empty.
func (p *Params) Str(name string) (*string, error) {
	vals := p.v[name]
	if len(vals) == 0 {
		return nil, nil
	}
	if len(vals) != 1 {
		return nil, apperr.Field(name, "given %d times; give it once", len(vals))
	}
	s := strings.TrimSpace(vals[0])
	if s == "" {
		return nil, nil
	}
	return &s, nil
}

// List is a parameter that may repeat, each value possibly a
// comma-separated list, as toncenter's clients send them.
func (p *Params) List(name string) []string {
	var out []string
	for _, v := range p.v[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// Uint is an unsigned integer of at most bits bits.
func (p *Params) Uint(name string, bits int) (*uint64, error) {
	s, err := p.Str(name)
	if s == nil || err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(*s, 10, bits)
	if err != nil {
		return nil, apperr.Field(name, "must be an integer from 0 to %d", uint64(1)<<bits-1)
	}
	return &n, nil
}

// Int is a signed integer of at most bits bits.
func (p *Params) Int(name string, bits int) (*int64, error) {
	s, err := p.Str(name)
	if s == nil || err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(*s, 10, bits)
	if err != nil {
		return nil, apperr.Field(name, "must be an integer of %d bits", bits)
	}
	return &n, nil
}

// Uint32 is Uint narrowed, for utimes and seqnos.
func (p *Params) Uint32(name string) (*uint32, error) {
	n, err := p.Uint(name, 32)
	if n == nil || err != nil {
		return nil, err
	}
	v := uint32(*n)
	return &v, nil
}

// RequiredUint32 is Uint32 that must be given.
func (p *Params) RequiredUint32(name string) (*uint32, error) {
	n, err := p.Uint32(name)
	if err == nil && n == nil {
		err = apperr.Field(name, "required")
	}
	return n, err
}

// Window reads the window filters every list route takes, mc_seqno,
// start_utime, end_utime, start_lt and end_lt, into the filter fields
// given; a nil field is a filter the route does not take.
func (p *Params) Window(mcSeqno, startUtime, endUtime **uint32, startLt, endLt **uint64) error {
	var err error
	for _, f := range []struct {
		name string
		dst  **uint32
	}{{"mc_seqno", mcSeqno}, {"start_utime", startUtime}, {"end_utime", endUtime}} {
		if f.dst != nil {
			if *f.dst, err = p.Uint32(f.name); err != nil {
				return err
			}
		}
	}
	for _, f := range []struct {
		name string
		dst  **uint64
	}{{"start_lt", startLt}, {"end_lt", endLt}} {
		if f.dst != nil {
			if *f.dst, err = p.Uint(f.name, 63); err != nil {
				return err
			}
		}
	}
	return nil
}

// Bool accepts true/false and 1/0.
func (p *Params) Bool(name string) (*bool, error) {
	s, err := p.Str(name)
	if s == nil || err != nil {
		return nil, err
	}
	b, err := strconv.ParseBool(*s)
	if err != nil {
		return nil, apperr.Field(name, "must be true or false")
	}
	return &b, nil
}

// Hashes are hashes in hex, base64 or base64url, returned in standard
// base64 (the store's form). At most max.
func (p *Params) Hashes(name string, max int) ([]string, error) {
	list := p.List(name)
	if len(list) > max {
		return nil, apperr.Field(name, "at most %d values", max)
	}
	out := make([]string, 0, len(list))
	for _, s := range list {
		h, err := chain.ParseHash(s)
		if err != nil {
			return nil, apperr.Field(name, "%q: %v", s, err)
		}
		out = append(out, h.Base64())
	}
	return out, nil
}

// Hash is one hash (see Hashes).
func (p *Params) Hash(name string) (*string, error) {
	s, err := p.Str(name)
	if s == nil || err != nil {
		return nil, err
	}
	h, err := chain.ParseHash(*s)
	if err != nil {
		return nil, apperr.Field(name, "%v", err)
	}
	b := h.Base64()
	return &b, nil
}

// Addresses are addresses in any form, returned raw upper-case (the
// store's form). At most max.
func (p *Params) Addresses(name string, max int) ([]string, error) {
	list := p.List(name)
	if len(list) > max {
		return nil, apperr.Field(name, "at most %d values", max)
	}
	out := make([]string, 0, len(list))
	for _, s := range list {
		a, err := chain.NormalizeAddress(s)
		if err != nil {
			return nil, apperr.Field(name, "%q: %v", s, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// Address is one address (see Addresses). When nullable, the value
// "null" stands for the missing end of an external message and is
// returned as "" (the store's form of it).
func (p *Params) Address(name string, nullable bool) (*string, error) {
	s, err := p.Str(name)
	if s == nil || err != nil {
		return nil, err
	}
	if nullable && *s == "null" {
		empty := ""
		return &empty, nil
	}
	a, err := chain.NormalizeAddress(*s)
	if err != nil {
		return nil, apperr.Field(name, "%v", err)
	}
	return &a, nil
}

// Opcode is a 32-bit op code in hex (0x...) or signed or unsigned
// decimal, as toncenter takes it; returned as the unsigned value.
func (p *Params) Opcode(name string) (*uint32, error) {
	s, err := p.Str(name)
	if s == nil || err != nil {
		return nil, err
	}
	v, err := chain.ParseOpcode(*s)
	if err != nil {
		return nil, apperr.Field(name, "%v", err)
	}
	return &v, nil
}

// Direction is in or out.
func (p *Params) Direction() (*string, error) {
	s, err := p.Str("direction")
	if s == nil || err != nil {
		return nil, err
	}
	if *s != "in" && *s != "out" {
		return nil, apperr.Field("direction", "must be in or out")
	}
	return s, nil
}

// Page is toncenter's limit, offset and sort.
type Page struct {
	Limit, Offset int
	Desc          bool
}

// PageParams are the names Page reads.
var PageParams = []string{"limit", "offset", "sort"}

// Page reads limit (1..MaxLimit, default DefaultLimit), offset (>= 0)
// and sort (asc or desc, default desc). Unlike toncenter, which clamps a
// limit under 1 and an offset under 0, those answer 422: a clamped value
// answers another question than the one asked.
func (p *Params) Page() (Page, error) {
	pg := Page{Limit: DefaultLimit, Desc: true}
	if n, err := p.Int("limit", 32); err != nil {
		return pg, err
	} else if n != nil {
		if *n < 1 || *n > MaxLimit {
			return pg, apperr.Field("limit", "must be from 1 to %d", MaxLimit)
		}
		pg.Limit = int(*n)
	}
	if n, err := p.Int("offset", 32); err != nil {
		return pg, err
	} else if n != nil {
		if *n < 0 {
			return pg, apperr.Field("offset", "must be 0 or more")
		}
		pg.Offset = int(*n)
	}
	s, err := p.Str("sort")
	if err != nil {
		return pg, err
	}
	if s != nil {
		switch *s {
		case "asc":
			pg.Desc = false
		case "desc":
		default:
			return pg, apperr.Field("sort", "must be asc or desc")
		}
	}
	return pg, nil
}

// Shard reads a shard as toncenter takes ShardId: unsigned hex (an
// optional 0x; "8000000000000000" is the whole workchain), else signed
// decimal as tonlib prints it. Returned signed, as the store keeps it.
func (p *Params) Shard(name string) (*int64, error) {
	s, err := p.Str(name)
	if s == nil || err != nil {
		return nil, err
	}
	v, err := chain.ParseShardID(*s)
	if err != nil {
		return nil, apperr.Field(name, "%v", err)
	}
	return &v, nil
}
