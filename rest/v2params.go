package rest

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// Typed parameters of the v2 block and transaction methods. A number may
// come as a JSON number or as a string of digits (GET query parameters
// are strings, and clients send lts and shards as strings so that 64-bit
// values survive JavaScript).

// integer is an optional integer parameter in [lo, hi]; ok is false when
// absent or null.
func (p params) integer(name string, lo, hi int64) (v int64, ok bool, err error) {
	raw, present := p[name]
	if !present || isNull(raw) {
		return 0, false, nil
	}
	text := strings.TrimSpace(string(raw))
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = strings.TrimSpace(s)
	}
	v, perr := strconv.ParseInt(text, 10, 64)
	if perr != nil {
		if f, ferr := strconv.ParseFloat(text, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			v, perr = int64(f), nil
		}
	}
	if perr != nil {
		return 0, false, apperr.Field(name, "must be an integer")
	}
	if v < lo || v > hi {
		return 0, false, apperr.Field(name, "must be between %d and %d", lo, hi)
	}
	return v, true, nil
}

// required is an integer parameter that must be given.
func (p params) required(name string, lo, hi int64) (int64, error) {
	v, ok, err := p.integer(name, lo, hi)
	if err == nil && !ok {
		err = apperr.Field(name, "required")
	}
	return v, err
}

// ltParam is an optional logical time (0 when absent).
func (p params) ltParam(name string) (uint64, error) {
	v, _, err := p.integer(name, 0, math.MaxInt64)
	return uint64(v), err
}

// hashParam is an optional hash in hex or base64 (zero when absent).
func (p params) hashParam(name string) (chain.Hash, error) {
	s, err := p.str(name)
	if err != nil || s == "" {
		return chain.Hash{}, err
	}
	h, err := chain.ParseHash(s)
	if err != nil {
		return h, apperr.Field(name, "%v", err)
	}
	return h, nil
}

// address is a required address parameter in any form.
func (p params) address(name string) (ton.AccountID, error) {
	s, err := p.str(name)
	if err != nil {
		return ton.AccountID{}, err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return ton.AccountID{}, apperr.Field(name, "required")
	}
	if len(s) > 100 {
		return ton.AccountID{}, apperr.Field(name, "too long to be an address")
	}
	id, err := chain.ParseAddress(s)
	if err != nil {
		return ton.AccountID{}, apperr.Field(name, "%v", err)
	}
	return id, nil
}

// blockParams are the workchain, shard and seqno naming a block.
func (p params) block() (wc int32, shard int64, seqno uint32, err error) {
	w, err := p.required("workchain", -1, 0)
	if err != nil {
		return
	}
	s, err := p.required("shard", math.MinInt64, math.MaxInt64)
	if err != nil {
		return
	}
	if s == 0 {
		return 0, 0, 0, apperr.Field("shard", "0 is no shard (the whole workchain is -9223372036854775808)")
	}
	q, err := p.required("seqno", 0, math.MaxUint32)
	return int32(w), s, uint32(q), err
}

// boolean is an optional boolean (true/false, or "true"/"false"/"1"/"0").
func (p params) boolean(name string) (bool, error) {
	raw, ok := p[name]
	if !ok || isNull(raw) {
		return false, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if v, err := strconv.ParseBool(s); err == nil {
			return v, nil
		}
	}
	return false, apperr.Field(name, "must be true or false")
}
