package getmethod

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/fees"
)

// The stack as toncenter's runGetMethod takes and returns it: a list of
// [type, value] pairs, bottom of the stack first.

// maxStackEntries bounds a request's stack (and a rendered answer's
// entries, tuples included): get methods take a handful.
const maxStackEntries = 256

// ParseStack reads toncenter's input stack: ["num", n] (a JSON number, or
// a string in decimal or 0x-hex, either with a minus), ["cell", boc],
// ["slice", boc], ["builder", boc] (also tvm.Cell, tvm.Slice, tvm.Builder,
// as @ton/ton sends them). null or absent is an empty stack.
func ParseStack(raw json.RawMessage) (tlb.VmStack, error) {
	var stack tlb.VmStack
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return stack, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return stack, apperr.Field("stack", "must be a list of [type, value] pairs")
	}
	if len(items) > maxStackEntries {
		return stack, apperr.Field("stack", "at most %d entries", maxStackEntries)
	}
	for i, item := range items {
		v, err := parseEntry(item)
		if err != nil {
			return stack, apperr.Field("stack", "entry %d: %v", i, err)
		}
		stack.Put(v)
	}
	return stack, nil
}

func parseEntry(raw json.RawMessage) (tlb.VmStackValue, error) {
	var v tlb.VmStackValue
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return v, fmt.Errorf("must be a [type, value] pair")
	}
	var typ string
	if err := json.Unmarshal(pair[0], &typ); err != nil {
		return v, fmt.Errorf("the type must be a string")
	}
	switch typ {
	case "num", "number", "int":
		n, err := parseNumber(pair[1])
		if err != nil {
			return v, err
		}
		v.SumType, v.VmStkInt = "VmStkInt", tlb.Int257(*n)
		return v, nil
	case "cell", "tvm.Cell", "slice", "tvm.Slice", "builder", "tvm.Builder":
		var s string
		if err := json.Unmarshal(pair[1], &s); err != nil {
			return v, fmt.Errorf("%s: the value must be base64 of a BOC", typ)
		}
		b, err := fees.CheckBOC("value", s)
		if err != nil {
			return v, fmt.Errorf("%s %v", typ, apperr.From(err).Msg)
		}
		cells, err := boc.DeserializeBoc(b)
		if err != nil || len(cells) != 1 {
			return v, fmt.Errorf("%s: not a BOC with one root", typ)
		}
		switch strings.TrimPrefix(typ, "tvm.") {
		case "cell", "Cell":
			v.SumType = "VmStkCell"
			v.VmStkCell.Value = *cells[0]
		case "slice", "Slice":
			return tlb.CellToVmCellSlice(cells[0])
		default:
			v.SumType = "VmStkBuilder"
			v.VmStkBuilder.Value = *cells[0]
		}
		return v, nil
	}
	return v, fmt.Errorf("unknown type %q (num, cell, slice, builder)", apperr.Excerpt(typ))
}

// int257 bounds.
var (
	maxInt = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	minInt = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 256))
)

func parseNumber(raw json.RawMessage) (*big.Int, error) {
	s := string(bytes.TrimSpace(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("num: not a string")
		}
	}
	if len(s) > 100 {
		return nil, fmt.Errorf("num: too long")
	}
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	base := 10
	if strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X") {
		base, digits = 16, digits[2:]
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok || digits == "" || strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-") {
		return nil, fmt.Errorf("num: %q is not an integer (decimal or 0x-hex)", apperr.Excerpt(s))
	}
	if neg {
		n.Neg(n)
	}
	if n.Cmp(maxInt) > 0 || n.Cmp(minInt) < 0 {
		return nil, fmt.Errorf("num: out of the 257-bit range")
	}
	return n, nil
}

// renderer turns a VM stack into toncenter's answer, within bounds: a get
// method may return a huge structure, and a cell DAG rendered as a tree
// can grow exponentially.
type renderer struct {
	entries int // stack entries and tuple elements rendered
	cells   int // cell objects rendered
}

const (
	maxObjectCells = 4096 // beyond this, a cell's "object" is left out (its "bytes" stay)
	maxTupleDepth  = 32
)

// RenderStack renders a VM stack as toncenter does: numbers as ["num",
// "0x1a"] ("-0x1a" when negative), cells and slices as ["cell", {"bytes",
// "object"}], tuples as ["tuple", {"@type": "tvm.tuple", "elements": [...]}]
// with tonlib's entry objects inside, null as an empty list, which is how
// tonlib returns it.
func RenderStack(s tlb.VmStack) ([]any, error) {
	r := &renderer{}
	out := make([]any, 0, s.Len())
	for i := 0; i < s.Len(); i++ {
		v, err := r.top(s.PeekBottom(i))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (r *renderer) count() error {
	r.entries++
	if r.entries > 100_000 {
		return fmt.Errorf("the get method's result is too large to return")
	}
	return nil
}

func (r *renderer) top(v tlb.VmStackValue) ([]any, error) {
	if err := r.count(); err != nil {
		return nil, err
	}
	switch v.SumType {
	case "VmStkTinyInt", "VmStkInt":
		return []any{"num", hexNumber(intOf(v))}, nil
	case "VmStkNull":
		return []any{"list", emptyList()}, nil
	case "VmStkCell", "VmStkSlice", "VmStkBuilder":
		c, err := cellOf(v)
		if err != nil {
			return nil, err
		}
		return []any{"cell", r.cell(c)}, nil
	case "VmStkTuple":
		els, err := r.elements(v.VmStkTuple, 1)
		if err != nil {
			return nil, err
		}
		return []any{"tuple", map[string]any{"@type": "tvm.tuple", "elements": els}}, nil
	}
	return []any{"unsupported", ""}, nil
}

// entry is a tuple element as tonlib writes it.
func (r *renderer) entry(v tlb.VmStackValue, depth int) (map[string]any, error) {
	if err := r.count(); err != nil {
		return nil, err
	}
	switch v.SumType {
	case "VmStkTinyInt", "VmStkInt":
		return map[string]any{"@type": "tvm.stackEntryNumber",
			"number": map[string]any{"@type": "tvm.numberDecimal", "number": intOf(v).String()}}, nil
	case "VmStkNull":
		return map[string]any{"@type": "tvm.stackEntryList", "list": emptyList()}, nil
	case "VmStkCell", "VmStkBuilder":
		c, err := cellOf(v)
		if err != nil {
			return nil, err
		}
		return map[string]any{"@type": "tvm.stackEntryCell", "cell": map[string]any{"@type": "tvm.cell", "bytes": bocOf(c)}}, nil
	case "VmStkSlice":
		c, err := cellOf(v)
		if err != nil {
			return nil, err
		}
		return map[string]any{"@type": "tvm.stackEntrySlice", "slice": map[string]any{"@type": "tvm.slice", "bytes": bocOf(c)}}, nil
	case "VmStkTuple":
		els, err := r.elements(v.VmStkTuple, depth+1)
		if err != nil {
			return nil, err
		}
		return map[string]any{"@type": "tvm.stackEntryTuple", "tuple": map[string]any{"@type": "tvm.tuple", "elements": els}}, nil
	}
	return map[string]any{"@type": "tvm.stackEntryUnsupported"}, nil
}

func (r *renderer) elements(t tlb.VmStkTuple, depth int) ([]any, error) {
	if depth > maxTupleDepth {
		return nil, fmt.Errorf("the get method's result nests tuples deeper than %d", maxTupleDepth)
	}
	els := []any{}
	if t.Len == 0 || t.Data == nil {
		return els, nil
	}
	items, err := t.Data.RecursiveToSlice(int(t.Len))
	if err != nil {
		return nil, fmt.Errorf("tuple: %w", err)
	}
	for _, it := range items {
		e, err := r.entry(it, depth)
		if err != nil {
			return nil, err
		}
		els = append(els, e)
	}
	return els, nil
}

func emptyList() map[string]any { return map[string]any{"@type": "tvm.list", "elements": []any{}} }

func intOf(v tlb.VmStackValue) *big.Int {
	if v.SumType == "VmStkTinyInt" {
		return big.NewInt(v.VmStkTinyInt)
	}
	n := big.Int(v.VmStkInt)
	return &n
}

// hexNumber writes n as Python's hex() does, as toncenter answers: 0x1a, -0x1a, 0x0.
func hexNumber(n *big.Int) string {
	if n.Sign() < 0 {
		return "-0x" + new(big.Int).Neg(n).Text(16)
	}
	return "0x" + n.Text(16)
}

func cellOf(v tlb.VmStackValue) (*boc.Cell, error) {
	switch v.SumType {
	case "VmStkCell":
		c := v.VmStkCell.Value
		return &c, nil
	case "VmStkBuilder":
		c := v.VmStkBuilder.Value
		return &c, nil
	}
	return v.VmStkSlice.CellSafe()
}

func bocOf(c *boc.Cell) string {
	b, err := c.ToBocBase64()
	if err != nil {
		return ""
	}
	return b
}

// cell is ["cell", ...]'s value: the BOC, and tonlib's object form of the
// tree (data bits and refs) while it stays within maxObjectCells.
func (r *renderer) cell(c *boc.Cell) map[string]any {
	out := map[string]any{"bytes": bocOf(c)}
	if obj, ok := r.object(c); ok {
		out["object"] = obj
	}
	return out
}

// CellObject is c in tonlib's object form, as the stack renders it (the
// form the v2 "Simple" calls take; rest packs it back), within
// maxObjectCells cells: false beyond.
func CellObject(c *boc.Cell) (map[string]any, bool) {
	var r renderer
	return r.object(c)
}

func (r *renderer) object(c *boc.Cell) (map[string]any, bool) {
	r.cells++
	if r.cells > maxObjectCells {
		return nil, false
	}
	c.ResetCounters()
	bits := c.ReadRemainingBits()
	data := make([]byte, (bits.BitsAvailableForRead()+7)/8)
	n := bits.BitsAvailableForRead()
	for i := 0; i < n; i++ {
		bit, _ := bits.ReadBit()
		if bit {
			data[i/8] |= 0x80 >> (i % 8)
		}
	}
	refs := []any{}
	for _, ref := range c.Refs() {
		o, ok := r.object(ref)
		if !ok {
			return nil, false
		}
		refs = append(refs, o)
	}
	return map[string]any{"data": map[string]any{"b64": base64.StdEncoding.EncodeToString(data), "len": n},
		"refs": refs, "special": c.IsExotic()}, true
}
