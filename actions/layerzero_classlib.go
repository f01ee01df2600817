package actions

import (
	"encoding/hex"
	"math/big"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// LayerZero v2 on TON (LayerZero-Labs/LayerZero-v2,
// packages/layerzero-v2/ton) passes its data between contracts as objects of
// its own "classlib" (src/funC++/classlib.fc), in a message body of the
// shape op:uint32 query_id:uint64 donation:Coins origin:MsgAddress ^md: the
// object is the body's first reference.
//
// An object starts with an 80-bit class name (the name's bytes, right
// aligned) and 15 field descriptors of 18 bits each (type:4, cell:2,
// bit offset:10, ref offset:2), 350 bits in all. A number field lives in the
// root cell (cell 0, its bit offset counted from the start of the cell,
// header included) or in the root's ref 2 or 3; a reference field is one of
// the refs of that cell. Types 0..8 are numbers of 1<<type bits (bool,
// uint8 .. uint256, coins as uint128), 9 is a reference.
type lzObj struct{ c *boc.Cell }

const (
	lzNameBits   = 80
	lzFieldBits  = 18
	lzHeaderBits = lzNameBits + 15*lzFieldBits
	lzRefType    = 9
)

// lzObject reads c as an object of the named class.
func lzObject(c *boc.Cell, name string) (lzObj, bool) {
	if c == nil || c.BitSize() < lzHeaderBits || len(name) > lzNameBits/8 {
		return lzObj{}, false
	}
	got, ok := cellBitsAt(c, 0, lzNameBits)
	if !ok {
		return lzObj{}, false
	}
	want := new(big.Int).SetBytes([]byte(name))
	if got.Cmp(want) != 0 {
		return lzObj{}, false
	}
	return lzObj{c: c}, true
}

// field reads the descriptor of field i.
func (o lzObj) field(i int) (typ, cell, off, ref int, ok bool) {
	if o.c == nil || i < 0 || i >= 15 {
		return 0, 0, 0, 0, false
	}
	v, ok := cellBitsAt(o.c, lzNameBits+i*lzFieldBits, lzFieldBits)
	if !ok {
		return 0, 0, 0, 0, false
	}
	d := v.Uint64()
	return int(d >> 14), int(d>>12) & 3, int(d>>2) & 0x3ff, int(d & 3), true
}

// cellOf is the cell that holds the fields of descriptor cell index idx.
func (o lzObj) cellOf(idx int) *boc.Cell {
	if idx == 0 {
		return o.c
	}
	refs := o.c.Refs()
	if idx < len(refs) {
		return refs[idx]
	}
	return nil
}

// uint reads number field i.
func (o lzObj) uint(i int) (*big.Int, bool) {
	typ, cell, off, _, ok := o.field(i)
	if !ok || typ >= lzRefType {
		return nil, false
	}
	c := o.cellOf(cell)
	if c == nil {
		return nil, false
	}
	return cellBitsAt(c, off, 1<<typ)
}

// u64 reads a number field that fits 64 bits.
func (o lzObj) u64(i int) (uint64, bool) {
	v, ok := o.uint(i)
	if !ok || !v.IsUint64() {
		return 0, false
	}
	return v.Uint64(), true
}

// ref reads reference field i.
func (o lzObj) ref(i int) (*boc.Cell, bool) {
	typ, cell, _, ref, ok := o.field(i)
	if !ok || typ != lzRefType {
		return nil, false
	}
	c := o.cellOf(cell)
	if c == nil {
		return nil, false
	}
	refs := c.Refs()
	if ref >= len(refs) {
		return nil, false
	}
	return refs[ref], true
}

// obj reads reference field i as an object of the named class.
func (o lzObj) obj(i int, name string) (lzObj, bool) {
	c, ok := o.ref(i)
	if !ok {
		return lzObj{}, false
	}
	return lzObject(c, name)
}

// cellBitsAt reads width bits of c at bit offset off as an unsigned number.
func cellBitsAt(c *boc.Cell, off, width int) (*big.Int, bool) {
	if off < 0 || width <= 0 || off+width > c.BitSize() {
		return nil, false
	}
	bs := c.RawBitString()
	buf := bs.Buffer()
	v := new(big.Int)
	for i := off; i < off+width; i++ {
		if i/8 >= len(buf) {
			return nil, false
		}
		v.Lsh(v, 1)
		if buf[i/8]>>(7-uint(i%8))&1 == 1 {
			v.SetBit(v, 0, 1)
		}
	}
	return v, true
}

// cellBytes is the data of c as bytes, the last one padded with zero bits.
func cellBytes(c *boc.Cell) []byte {
	bs := c.RawBitString()
	buf := bs.Buffer()
	n := (c.BitSize() + 7) / 8
	if n > len(buf) {
		n = len(buf)
	}
	out := append([]byte(nil), buf[:n]...)
	if rem := c.BitSize() % 8; rem != 0 && n > 0 {
		out[n-1] &= byte(0xff << (8 - rem))
	}
	return out
}

// lzMessageBody parses a LayerZero message body and returns its md object
// cell (the body's first reference).
func lzMessageBody(body []byte) (md *boc.Cell, ok bool) {
	defer func() {
		if recover() != nil {
			md, ok = nil, false
		}
	}()
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return nil, false
	}
	refs := cells[0].Refs()
	if len(refs) == 0 {
		return nil, false
	}
	return refs[0], true
}

// lzMd reads the md object of n's in-message as the named class.
func lzMd(n *node, name string) (lzObj, bool) {
	if n == nil || n.in() == nil {
		return lzObj{}, false
	}
	md, ok := lzMessageBody(n.in().Body)
	if !ok {
		return lzObj{}, false
	}
	return lzObject(md, name)
}

// lzHex writes a number as toncenter does (Python's hex()): 0x and the
// lower-case digits without leading zeros.
func lzHex(v *big.Int) string {
	if v == nil {
		return ""
	}
	return "0x" + v.Text(16)
}

// lzAddress is a 256-bit LayerZero address of a TON contract (its account
// id in workchain 0) as a raw address; "" for the null address.
func lzAddress(v *big.Int) Address {
	if v == nil || v.Sign() == 0 || v.BitLen() > 256 {
		return ""
	}
	var id ton.AccountID
	v.FillBytes(id.Address[:])
	return Address(chain.RawAddress(id))
}

// lzMessageHex is a packet's message: the data of its cell and of the cells
// it links to (each cell's first reference continues it), as 0x and hex.
func lzMessageHex(c *boc.Cell) string {
	var out []byte
	for i := 0; c != nil && i < 256; i++ {
		out = append(out, cellBytes(c)...)
		refs := c.Refs()
		if len(refs) == 0 {
			break
		}
		c = refs[0]
	}
	return "0x" + hex.EncodeToString(out)
}
