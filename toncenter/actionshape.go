package toncenter

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/tonql/tonql/chain"
)

// shape is one node of a details shape (detailsShapes): a leaf kind, an
// object with ordered keys, or a list of elem.
type shape struct {
	kind string // "s", "n", "b", "any", "object", "list"
	omit bool   // omitempty: left out when unknown
	keys []string
	kids map[string]*shape
	elem *shape
}

var parsedShapes = sync.OnceValue(func() map[string]*shape {
	out := make(map[string]*shape, len(detailsShapes))
	for name, src := range detailsShapes {
		s, err := parseShape(json.NewDecoder(strings.NewReader(src)))
		if err != nil {
			panic(fmt.Sprintf("toncenter: details shape of %s: %v", name, err))
		}
		out[name] = s
	}
	return out
})

func shapeOf(name string) (*shape, bool) {
	s, ok := parsedShapes()[name]
	return s, ok
}

// parseShape reads a shape keeping the object keys' order.
func parseShape(d *json.Decoder) (*shape, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case string:
		kind, omit := strings.CutSuffix(tok, "?")
		return &shape{kind: kind, omit: omit}, nil
	case json.Delim:
		switch tok {
		case '{':
			s := &shape{kind: "object", kids: map[string]*shape{}}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				kid, err := parseShape(d)
				if err != nil {
					return nil, err
				}
				s.keys = append(s.keys, k.(string))
				s.kids[k.(string)] = kid
			}
			_, err := d.Token()
			return s, err
		case '[':
			elem, err := parseShape(d)
			if err != nil {
				return nil, err
			}
			_, err = d.Token()
			return &shape{kind: "list", elem: elem}, err
		}
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

// write appends x in the shape: every key of an object (null when x lacks
// it), each leaf as the kind toncenter marshals (amounts and indexes that
// are numbers in toncenter's model become numbers, and the reverse).
// Nested objects are written even when x lacks them, as toncenter's
// converter fills its nested structs; a list we lack is null.
func (s *shape) write(b []byte, x any) []byte {
	switch s.kind {
	case "object":
		m, _ := x.(map[string]any)
		b = append(b, '{')
		first := true
		for _, k := range s.keys {
			if s.kids[k].omit && m[k] == nil {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			b = s.kids[k].write(b, m[k])
		}
		return append(b, '}')
	case "list":
		l, ok := x.([]any)
		if !ok {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, e := range l {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.elem.write(b, e)
		}
		return append(b, ']')
	}
	if x == nil {
		return append(b, "null"...)
	}
	switch s.kind {
	case "s":
		if n, ok := x.(json.Number); ok {
			return strconv.AppendQuote(b, n.String())
		}
		if str, ok := x.(string); ok {
			return chain.AppendJSONString(b, str)
		}
	case "n":
		if str, ok := x.(string); ok {
			if _, err := strconv.ParseInt(str, 10, 64); err == nil {
				return append(b, str...)
			}
		}
	}
	j, _ := json.Marshal(x) // decoded JSON values always marshal
	return append(b, j...)
}
