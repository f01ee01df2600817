package toncenter

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/tonql/tonql/apperr"
)

// StackEntry is toncenter v3's V2StackEntity: {"type", "value"}. Numbers
// are 0x-hex strings, cells and slices base64 BOCs, tuples and lists
// lists of entries.
type StackEntry struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// RunGetMethodResult is toncenter v3's V2RunGetMethodResult.
type RunGetMethodResult struct {
	GasUsed  int64        `json:"gas_used"`
	ExitCode int64        `json:"exit_code"`
	Stack    []StackEntry `json:"stack"`
}

// v2Types are the v2 pair types of v3's input types.
var v2Types = map[string]string{"num": "num", "cell": "tvm.Cell", "slice": "tvm.Slice"}

// StackToV2 turns v3's input stack ([{type, value}] with num, cell or
// slice) into v2's [type, value] pairs, which getmethod.ParseStack reads.
func StackToV2(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var in []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, apperr.Field("stack", "must be a list of {type, value} objects")
	}
	out := make([][2]any, len(in))
	for i, e := range in {
		t, ok := v2Types[e.Type]
		if !ok {
			return nil, apperr.Field("stack", "entry %d: type must be num, cell or slice", i)
		}
		out[i] = [2]any{t, e.Value}
	}
	b, _ := json.Marshal(out)
	return b, nil
}

// StackFromV2 turns a stack rendered in v2's pairs (getmethod.RenderStack)
// into v3's entries, as toncenter converts them.
func StackFromV2(pairs []any) ([]StackEntry, error) {
	out := make([]StackEntry, 0, len(pairs))
	for _, p := range pairs {
		pair, ok := p.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("stack entry %v is not a pair", p)
		}
		typ, _ := pair[0].(string)
		switch typ {
		case "num":
			out = append(out, StackEntry{Type: "num", Value: pair[1]})
		case "cell", "slice":
			m, _ := pair[1].(map[string]any)
			out = append(out, StackEntry{Type: typ, Value: m["bytes"]})
		case "tuple", "list":
			m, _ := pair[1].(map[string]any)
			els, err := entriesFromV2(m["elements"])
			if err != nil {
				return nil, err
			}
			out = append(out, StackEntry{Type: typ, Value: els})
		default:
			return nil, fmt.Errorf("unsupported stack entry type %q", typ)
		}
	}
	return out, nil
}

// entriesFromV2 converts tonlib's typed entries inside a tuple or list.
func entriesFromV2(v any) ([]StackEntry, error) {
	list, _ := v.([]any)
	out := make([]StackEntry, 0, len(list))
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("tuple element %v is not an object", it)
		}
		switch m["@type"] {
		case "tvm.stackEntryNumber":
			num, _ := m["number"].(map[string]any)
			s, _ := num["number"].(string)
			n, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return nil, fmt.Errorf("number %q is not decimal", s)
			}
			out = append(out, StackEntry{Type: "num", Value: fmt.Sprintf("%#x", n)})
		case "tvm.stackEntryCell":
			c, _ := m["cell"].(map[string]any)
			out = append(out, StackEntry{Type: "cell", Value: c["bytes"]})
		case "tvm.stackEntrySlice":
			c, _ := m["slice"].(map[string]any)
			out = append(out, StackEntry{Type: "slice", Value: c["bytes"]})
		case "tvm.stackEntryTuple", "tvm.stackEntryList":
			key, typ := "tuple", "tuple"
			if m["@type"] == "tvm.stackEntryList" {
				key, typ = "list", "list"
			}
			inner, _ := m[key].(map[string]any)
			els, err := entriesFromV2(inner["elements"])
			if err != nil {
				return nil, err
			}
			out = append(out, StackEntry{Type: typ, Value: els})
		default:
			return nil, fmt.Errorf("unsupported stack element %v", m["@type"])
		}
	}
	return out, nil
}
