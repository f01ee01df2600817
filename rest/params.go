package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"

	"github.com/tonql/tonql/apperr"
)

// params are a call's named parameters: a JSON-RPC params object, a POST
// body, or GET query parameters (as strings).
type params map[string]json.RawMessage

// objectParams decodes a JSON object; null or nothing is no parameters.
func objectParams(raw json.RawMessage) (params, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return params{}, nil
	}
	var p params
	if err := json.Unmarshal(raw, &p); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, apperr.Field("params", "must be a JSON object")
		}
		return nil, apperr.New(apperr.BadRequest, "request body is not valid JSON")
	}
	if p == nil {
		return params{}, nil
	}
	return p, nil
}

// queryParams turns GET query parameters into params (each a string);
// one given twice is an error naming it, except the lists named (as
// ton-http-api takes getLibraries' libraries): those become a JSON array
// of strings however often they are given.
func queryParams(v url.Values, lists ...string) (params, error) {
	p := params{}
	for name, vals := range v {
		if slices.Contains(lists, name) {
			p[name], _ = json.Marshal(vals)
			continue
		}
		if len(vals) != 1 {
			return nil, apperr.Field(name, "given %d times; give it once", len(vals))
		}
		b, _ := json.Marshal(vals[0])
		p[name] = b
	}
	return p, nil
}

func isNull(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

// str is a string parameter; absent or null is "".
func (p params) str(name string) (string, error) {
	v, ok := p[name]
	if !ok || isNull(v) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", apperr.Field(name, "must be a string")
	}
	return s, nil
}

// noSeqno refuses toncenter's seqno parameter (the state at an older
// masterchain block): this server answers with current states only, and
// silently ignoring it would answer a different question.
func (p params) noSeqno() error {
	if v, ok := p["seqno"]; ok && !isNull(v) {
		return apperr.Field("seqno", "states at an older masterchain block are not served; omit seqno for the current state")
	}
	return nil
}

// raw is the JSON text of params, for the decoders that take it whole.
func (p params) raw() json.RawMessage {
	b, _ := json.Marshal(map[string]json.RawMessage(p))
	return b
}
