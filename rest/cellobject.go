package rest

import (
	"encoding/base64"
	"encoding/json"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/apperr"
)

// cellObject is a cell as tonlib's deprecated "Simple" calls take it:
// {"data": {"b64": "<bytes>", "len": <bits>}, "refs": [<cells>]}. The
// first len bits of the bytes are the cell's data.
type cellObject struct {
	Data *struct {
		B64 string `json:"b64"`
		Len int    `json:"len"`
	} `json:"data"`
	Refs []cellObject `json:"refs"`
}

// The bounds of one message's cell tree on the network (max_msg_cells and
// max depth of the config's size limits): nothing larger can be sent, so
// nothing larger is built.
const (
	maxObjectCells = 8192
	maxObjectDepth = 512
)

// cellObjectBOC turns the cell object in parameter name into a base64
// BOC; absent or null gives "" (no cell).
func cellObjectBOC(p params, name string) (string, error) {
	raw, ok := p[name]
	if !ok || isNull(raw) {
		return "", nil
	}
	var obj cellObject
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", apperr.Field(name, `must be a cell object {"data": {"b64": "...", "len": bits}, "refs": [...]}`)
	}
	cells := 0
	c, err := obj.cell(name, 0, &cells)
	if err != nil {
		return "", err
	}
	s, err := c.ToBocBase64()
	if err != nil {
		return "", apperr.Field(name, "%v", err)
	}
	return s, nil
}

func (o *cellObject) cell(name string, depth int, cells *int) (*boc.Cell, error) {
	*cells++
	if *cells > maxObjectCells {
		return nil, apperr.Field(name, "more than %d cells", maxObjectCells)
	}
	if depth > maxObjectDepth {
		return nil, apperr.Field(name, "deeper than %d cells", maxObjectDepth)
	}
	if o.Data == nil {
		return nil, apperr.Field(name, "a cell without data (want data.b64 and data.len)")
	}
	data, err := base64.StdEncoding.DecodeString(o.Data.B64)
	if err != nil {
		return nil, apperr.Field(name, "data.b64 is not base64")
	}
	if o.Data.Len < 0 || o.Data.Len > boc.CellBits || o.Data.Len > 8*len(data) {
		return nil, apperr.Field(name, "data.len %d: want 0..%d bits, at most the %d bits of data.b64", o.Data.Len, boc.CellBits, 8*len(data))
	}
	if len(o.Refs) > 4 {
		return nil, apperr.Field(name, "a cell has at most 4 refs, got %d", len(o.Refs))
	}
	c := boc.NewCell()
	for i := 0; i < o.Data.Len; i++ {
		if err := c.WriteBit(data[i/8]&(0x80>>(i%8)) != 0); err != nil {
			return nil, apperr.Field(name, "%v", err)
		}
	}
	for i := range o.Refs {
		r, err := o.Refs[i].cell(name, depth+1, cells)
		if err != nil {
			return nil, err
		}
		if err := c.AddRef(r); err != nil {
			return nil, apperr.Field(name, "%v", err)
		}
	}
	return c, nil
}
