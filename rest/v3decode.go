package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/decode"
	"github.com/tonql/tonql/toncenter"
)

// maxDecode is how many op codes, and how many bodies, one request may
// name (toncenter's bound).
const maxDecode = 1000

var decodeParams = []string{"opcodes", "bodies"}

// Decode serves /api/v3/decode: op codes named and message bodies decoded
// (package decode, tongo's decoders), by GET with repeated opcodes and
// bodies parameters or by POST with {"opcodes": [...], "bodies": [...]}.
func Decode() http.HandlerFunc {
	get := v3Get(decodeParams, func(_ *http.Request, p *toncenter.Params) (any, error) {
		return decoded(p.List("opcodes"), p.List("bodies"))
	})
	post := v3Post(decodeParams, func(_ *http.Request, p params) (any, error) {
		opcodes, err := p.strings("opcodes")
		if err != nil {
			return nil, err
		}
		bodies, err := p.strings("bodies")
		if err != nil {
			return nil, err
		}
		return decoded(opcodes, bodies)
	})
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			// toncenter's POST takes a body (its parser refuses none); an
			// empty one is a mistake, not a request for nothing.
			if r.ContentLength == 0 {
				WriteError(w, r, V3, apperr.Field("opcodes", `POST takes a JSON body {"opcodes": [...], "bodies": [...]}; none was sent`))
				return
			}
			post(w, r)
			return
		}
		get(w, r)
	}
}

func decoded(opcodes, bodies []string) (*toncenter.DecodeResponse, error) {
	for name, list := range map[string][]string{"opcodes": opcodes, "bodies": bodies} {
		if len(list) > maxDecode {
			return nil, apperr.Field(name, "at most %d per request (%d given)", maxDecode, len(list))
		}
	}
	out := &toncenter.DecodeResponse{Opcodes: make([]string, len(opcodes)), Bodies: make([]map[string]any, len(bodies))}
	for i, s := range opcodes {
		op, err := parseOpcode(s)
		if err != nil {
			return nil, apperr.Field("opcodes", "invalid opcode format at index %d: %s", i, apperr.Excerpt(s))
		}
		out.Opcodes[i] = decode.Opcode(op)
	}
	for i, b := range bodies {
		out.Bodies[i] = decode.Body(b)
	}
	return out, nil
}

// parseOpcode reads an op code as toncenter does: hex first (with or
// without 0x, so "10" is 0x10), then decimal, then signed decimal.
func parseOpcode(s string) (uint32, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "0x")
	if n, err := strconv.ParseUint(s, 16, 32); err == nil {
		return uint32(n), nil
	}
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return uint32(n), nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return uint32(n), err
}

// strings is an optional list of strings; absent or null is none.
func (p params) strings(name string) ([]string, error) {
	raw, ok := p[name]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, apperr.Field(name, "must be a list of strings")
	}
	return list, nil
}
