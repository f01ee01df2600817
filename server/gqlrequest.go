package server

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// graphQLMembers are the members of a GraphQL request body.
var graphQLMembers = [...]string{"query", "operationName", "variables", "extensions"}

// graphQLBody is a checked POST /graphql body, member by member: each the
// member's JSON text, nil when absent. limitBody leaves it in the
// request's context, so the transport decodes the body once
// (postTransport).
type graphQLBody struct{ query, operationName, variables, extensions json.RawMessage }

type graphQLBodyKey struct{}

// member is where b keeps the member named name; nil for another name.
func (b *graphQLBody) member(name []byte) *json.RawMessage {
	switch string(name) { // compared without a copy
	case "query":
		return &b.query
	case "operationName":
		return &b.operationName
	case "variables":
		return &b.variables
	case "extensions":
		return &b.extensions
	}
	return nil
}

// params decodes the members into gqlgen's parameters as gqlgen's POST
// transport decodes a whole body: numbers keep their text, for Int and
// Float inputs; a null member leaves its parameter empty.
func (b graphQLBody) params(p *graphql.RawParams) error {
	for _, m := range []struct {
		raw json.RawMessage
		dst any
	}{{b.query, &p.Query}, {b.operationName, &p.OperationName}, {b.variables, &p.Variables}, {b.extensions, &p.Extensions}} {
		if len(m.raw) == 0 {
			continue
		}
		if s, ok := m.dst.(*string); ok {
			if v, plain := chain.PlainJSONString(m.raw); plain {
				*s = v
				continue
			}
		}
		if vars, ok := m.dst.(*map[string]any); ok {
			if flat, ok := flatJSONObject(m.raw); ok {
				*vars = flat
				continue
			}
		}
		dec := json.NewDecoder(bytes.NewReader(m.raw))
		dec.UseNumber()
		if err := dec.Decode(m.dst); err != nil {
			return err
		}
	}
	return nil
}

// flatJSONObject is a checked JSON object as a decoder with UseNumber
// gives it, when every member's value is a plain string
// (chain.PlainJSONString), a number, true, false or null; false for any other
// (a nested object or list, an escape, a name that is not valid UTF-8).
// Variables usually are such an object (an address, a cursor, a size):
// a decoder's buffer and state were most of what decoding them cost.
func flatJSONObject(raw []byte) (map[string]any, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	out := map[string]any{}
	flat := true
	jsonMembers(raw, func(name, value []byte) {
		if !flat {
			return
		}
		if !utf8.Valid(name) {
			flat = false
			return
		}
		v, plain := chain.PlainJSONString(value)
		switch c := value[0]; {
		case plain:
			out[string(name)] = v
		case c == '-' || c >= '0' && c <= '9':
			out[string(name)] = json.Number(value)
		case c == 't':
			out[string(name)] = true
		case c == 'f':
			out[string(name)] = false
		case c == 'n':
			out[string(name)] = nil
		default:
			flat = false
		}
	})
	return out, flat
}

// checkGraphQLBody rejects a POST /graphql body that gqlgen's transport
// would mishandle: not an object (`null` made it panic), or members of
// the wrong JSON type (its decode error echoed Go type names and the whole
// body). What passes decodes cleanly into gqlgen's parameters (params).
// It answers as decoding the body into a map of raw members would (the
// last of a repeated member counts), without the map: json.Valid, then a
// walk over the top-level members (jsonMembers).
func checkGraphQLBody(raw []byte) (graphQLBody, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return graphQLBody{}, apperr.New(apperr.BadRequest, "request body must be a JSON object with a \"query\" string")
	}
	if !json.Valid(raw) {
		return graphQLBody{}, apperr.New(apperr.BadRequest, "request body is not valid JSON")
	}
	var body graphQLBody
	var bad error
	jsonMembers(raw, func(name, value []byte) {
		if dst := body.member(name); dst != nil {
			*dst = value
			return
		}
		// Member names are exact (GraphQL over HTTP): gqlgen decodes with
		// Go's case-insensitive matching, which would take "Query" or
		// "querY" for the query; they are refused here, naming the member
		// meant.
		for _, known := range graphQLMembers {
			if bad == nil && strings.EqualFold(string(name), known) {
				e := apperr.New(apperr.BadRequest, "%s: unknown member; the name is %q (member names are case-sensitive)", name, known)
				e.Field = string(name)
				bad = e
			}
		}
	})
	if bad != nil {
		return graphQLBody{}, bad
	}
	for _, m := range []struct {
		name, want string
		raw        json.RawMessage
	}{
		{"query", "a string", body.query},
		{"operationName", "a string", body.operationName},
		{"variables", "an object", body.variables},
		{"extensions", "an object", body.extensions},
	} {
		if len(m.raw) == 0 || string(m.raw) == "null" {
			continue
		}
		first := m.raw[0]
		if m.want == "a string" && first != '"' || m.want == "an object" && first != '{' {
			e := apperr.New(apperr.BadRequest, "%s: must be %s", m.name, m.want)
			e.Field = m.name
			return graphQLBody{}, e
		}
	}
	return body, nil
}

// checkGraphQLMethod answers, in GraphQL's shape and with a code, what
// gqlgen would answer "transport not supported" without one: a POST that
// is not JSON, or a method no transport takes. GET (and its websocket
// upgrade), HEAD and OPTIONS go on to gqlgen and the middleware around it.
func checkGraphQLMethod(w http.ResponseWriter, r *http.Request) error {
	switch r.Method {
	case http.MethodHead, http.MethodOptions:
		return nil
	case http.MethodGet:
		if r.Header.Get("Upgrade") != "" {
			return nil // a websocket
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return apperr.New(apperr.BadRequest, "the query string is malformed")
		}
		for _, name := range []string{"variables", "extensions"} {
			// gqlgen decodes any value that is not empty, so a value of
			// only spaces must be refused here too.
			raw := q.Get(name)
			if v := strings.TrimSpace(raw); raw != "" && !(v != "" && v[0] == '{' && json.Valid([]byte(v))) && v != "null" {
				e := apperr.New(apperr.BadRequest, "%s: must be a JSON object", name)
				e.Field = name
				return e
			}
		}
		return nil
	case http.MethodPost:
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			return apperr.New(apperr.BadRequest, "POST /graphql takes a JSON body with Content-Type: application/json")
		}
		return nil
	}
	w.Header().Set("Allow", "GET, POST")
	return apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use POST or GET", apperr.Excerpt(r.Method))
}
