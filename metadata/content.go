// Package metadata makes token metadata (TEP-64) from the content cells
// that jetton masters, NFT collections and NFT items hold: it parses
// on-chain, off-chain and semi-chain content, fetches off-chain JSON in a
// background worker (never on a request's path) under size, time,
// redirect and address limits, merges the two as TEP-64 says, and stores
// the result with when and why through the store it is given.
package metadata

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/chain"
)

// Bounds of one content cell. Contract data on chain is far smaller
// (accounts are limited to 65,536 cells), so these refuse only crafted or
// corrupt input, and keep any input's work bounded.
const (
	// MaxContentBytes bounds the BOC a content is read from.
	MaxContentBytes = 1 << 20
	// maxCells bounds the cells one parse reads (every cell read counts,
	// so a dictionary that reuses cells cannot make the walk exponential).
	maxCells = 1 << 14
	// maxAttributes bounds the entries of the attribute dictionary.
	maxAttributes = 512
	// maxValueBytes bounds one attribute's value (image_data included);
	// a longer value is skipped, the rest of the content kept (a snake
	// value cannot pass about 127 KB: a BOC is at most 1024 cells deep).
	maxValueBytes = 64 << 10
	// maxChunks bounds the chunks of one chunked value.
	maxChunks = 4096
)

// Content is a token's TEP-64 content as parsed from its cell.
type Content struct {
	// Layout is chain.MetadataOnchain, MetadataOffchain or MetadataSemichain
	// (on-chain content that also holds a uri).
	Layout string
	// URI links the off-chain JSON: the whole of off-chain content, the
	// uri attribute of semi-chain content; "" for on-chain content.
	URI string
	// Attrs are the on-chain attributes by name, as UTF-8 text; image_data
	// (binary) is base64 of its bytes. The uri attribute is in URI.
	Attrs map[string]string
	// Unknown are on-chain attributes whose key is no name we know, by the
	// hex of the key (sha256 of a name we cannot recover), as UTF-8 text.
	Unknown map[string]string
	// Skipped are attributes left out, by name (or hex key), with why:
	// not_utf8, too_large, bad_encoding.
	Skipped map[string]string
}

// ErrContent is the class of every parse failure: the content is not
// TEP-64 content (or exceeds the bounds above).
var ErrContent = errors.New("bad content")

func contentErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrContent, fmt.Sprintf(format, args...))
}

// Parse reads a content cell given as a BOC with one root.
func Parse(bocBytes []byte) (*Content, error) {
	if len(bocBytes) > MaxContentBytes {
		return nil, contentErr("BOC of %d bytes, more than %d", len(bocBytes), MaxContentBytes)
	}
	root, err := chain.DecodeRoot(bocBytes)
	if err != nil {
		return nil, contentErr("%v", err)
	}
	return ParseCell(root)
}

// ParseCell reads a content cell. The cell is only read through copies of
// its bits, so it may be shared (it is not read by its own cursor).
func ParseCell(root *boc.Cell) (*Content, error) {
	r := &reader{cells: maxCells}
	s, err := r.open(root)
	if err != nil {
		return nil, err
	}
	prefix, err := s.bits.ReadUint(8)
	if err != nil {
		return nil, contentErr("no layout byte")
	}
	switch prefix {
	case 0x01: // offchain#01 uri:Text
		b, err := r.snake(s, maxValueBytes)
		if err != nil {
			return nil, contentErr("off-chain uri: %v", err)
		}
		if !utf8.Valid(b) {
			return nil, contentErr("off-chain uri is not UTF-8")
		}
		return &Content{Layout: chain.MetadataOffchain, URI: string(b)}, nil
	case 0x00: // onchain#00 data:(HashmapE 256 ^ContentData)
		return r.onchain(s)
	}
	return nil, contentErr("unknown layout byte 0x%02x", prefix)
}

func (r *reader) onchain(s *slice) (*Content, error) {
	c := &Content{Layout: chain.MetadataOnchain, Attrs: map[string]string{}}
	entries := 0
	err := r.dictE(s, 256, func(key boc.BitString, v *slice) error {
		if entries++; entries > maxAttributes {
			return contentErr("more than %d attributes", maxAttributes)
		}
		k, err := key.ReadBytes(32)
		if err != nil {
			return contentErr("attribute key: %v", err)
		}
		name, known := attributeKeys[[32]byte(k)]
		if !known {
			name = hex.EncodeToString(k)
		}
		b, err := r.contentData(v)
		switch {
		case errors.Is(err, errTooLarge):
			c.skip(name, "too_large")
			return nil
		case errors.Is(err, errBudget):
			return err
		case err != nil:
			c.skip(name, "bad_encoding")
			return nil
		}
		switch {
		case name == "image_data":
			c.Attrs[name] = base64.StdEncoding.EncodeToString(b)
		case !utf8.Valid(b):
			c.skip(name, "not_utf8")
		case name == "uri":
			c.URI = string(b)
		case !known:
			if c.Unknown == nil {
				c.Unknown = map[string]string{}
			}
			c.Unknown[name] = string(b)
		default:
			c.Attrs[name] = string(b)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrContent) {
			return nil, err
		}
		return nil, contentErr("attribute dictionary: %v", err)
	}
	if c.URI != "" {
		c.Layout = chain.MetadataSemichain
	}
	return c, nil
}

func (c *Content) skip(name, why string) {
	if c.Skipped == nil {
		c.Skipped = map[string]string{}
	}
	c.Skipped[name] = why
}

var (
	errTooLarge = errors.New("value too large")
	errBudget   = contentErr("more than %d cells", maxCells)
)

// reader reads cells under a budget of cells.
type reader struct {
	cells int
}

// slice is a cell being read: a private copy of its bits (with its own
// cursor) and its references.
type slice struct {
	bits boc.BitString
	refs []*boc.Cell
	next int // the next reference to take
}

func (r *reader) open(c *boc.Cell) (*slice, error) {
	if r.cells--; r.cells < 0 {
		return nil, errBudget
	}
	if c == nil {
		return nil, contentErr("missing cell")
	}
	if c.IsExotic() {
		return nil, contentErr("exotic cell (pruned branch or library) in content")
	}
	bits := c.RawBitString()
	bits.ResetCounter()
	return &slice{bits: bits, refs: c.Refs()}, nil
}

func (s *slice) ref() (*boc.Cell, error) {
	if s.next >= len(s.refs) {
		return nil, errors.New("missing reference")
	}
	s.next++
	return s.refs[s.next-1], nil
}

// contentData reads an attribute's value: ^ContentData as TEP-64 says,
// or the ContentData itself, which some contracts store in place (a value
// with no bits and one reference is the standard form).
//
//	snake#00 data:(SnakeData ~n) = ContentData;
//	chunks#01 data:ChunkedData = ContentData;
func (r *reader) contentData(v *slice) ([]byte, error) {
	if v.bits.BitsAvailableForRead() == 0 && len(v.refs)-v.next >= 1 {
		c, _ := v.ref()
		var err error
		if v, err = r.open(c); err != nil {
			return nil, err
		}
	}
	tag, err := v.bits.ReadUint(8)
	if err != nil {
		return nil, errors.New("no content data tag")
	}
	switch tag {
	case 0x00:
		return r.snake(v, maxValueBytes)
	case 0x01:
		return r.chunks(v, maxValueBytes)
	}
	return nil, fmt.Errorf("unknown content data tag 0x%02x", tag)
}

// snake reads SnakeData: the slice's remaining bits, then each first
// reference's bits in turn. The bits must add up to whole bytes.
func (r *reader) snake(s *slice, limit int) ([]byte, error) {
	var out boc.BitString
	for {
		n := s.bits.BitsAvailableForRead()
		if out.GetWriteCursor()+n > limit*8 {
			return nil, errTooLarge
		}
		out.Append(s.bits.ReadRemainingBits())
		if s.next >= len(s.refs) {
			break
		}
		c, _ := s.ref()
		var err error
		if s, err = r.open(c); err != nil {
			return nil, err
		}
	}
	return wholeBytes(out)
}

// chunks reads ChunkedData: chunks keyed 0, 1, 2, ... each one cell of
// bits, read in key order while the keys run on (as indexers read them).
//
//	chunked_data#_ data:(HashMapE 32 ^(SnakeData ~0)) = ChunkedData;
func (r *reader) chunks(s *slice, limit int) ([]byte, error) {
	parts := map[uint32]boc.BitString{}
	err := r.dictE(s, 32, func(key boc.BitString, v *slice) error {
		if len(parts) >= maxChunks {
			return fmt.Errorf("more than %d chunks", maxChunks)
		}
		k, err := key.ReadUint(32)
		if err != nil {
			return err
		}
		c, err := v.ref()
		if err != nil {
			return err
		}
		cs, err := r.open(c)
		if err != nil {
			return err
		}
		parts[uint32(k)] = cs.bits.ReadRemainingBits()
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out boc.BitString
	for i := uint32(0); ; i++ {
		p, ok := parts[i]
		if !ok {
			break
		}
		if out.GetWriteCursor()+p.BitsAvailableForRead() > limit*8 {
			return nil, errTooLarge
		}
		out.Append(p)
	}
	return wholeBytes(out)
}

func wholeBytes(b boc.BitString) ([]byte, error) {
	n := b.GetWriteCursor()
	if n%8 != 0 {
		return nil, errors.New("data is not whole bytes")
	}
	b.ResetCounter()
	return b.ReadBytes(n / 8)
}

// dictE reads a HashmapE with keys of n bits, calling visit with each key
// and the slice of its value, in key order.
//
//	hme_empty$0 = HashmapE n X;  hme_root$1 root:^(Hashmap n X) = HashmapE n X;
func (r *reader) dictE(s *slice, n int, visit func(key boc.BitString, v *slice) error) error {
	present, err := s.bits.ReadBit()
	if err != nil {
		return errors.New("no dictionary bit")
	}
	if !present {
		return nil
	}
	root, err := s.ref()
	if err != nil {
		return err
	}
	return r.dict(root, n, boc.NewBitString(n), visit)
}

// dict walks one Hashmap node: its label, then the leaf's value or both
// forks.
//
//	hm_edge#_ label:(HmLabel ~l n) {n = (~m) + l} node:(HashmapNode m X) = Hashmap n X;
//	hmn_leaf#_ value:X = HashmapNode 0 X;
//	hmn_fork#_ left:^(Hashmap n X) right:^(Hashmap n X) = HashmapNode (n + 1) X;
func (r *reader) dict(c *boc.Cell, n int, key boc.BitString, visit func(boc.BitString, *slice) error) error {
	s, err := r.open(c)
	if err != nil {
		return err
	}
	l, err := label(&s.bits, n, &key)
	if err != nil {
		return err
	}
	m := n - l
	if m == 0 {
		key.ResetCounter()
		return visit(key, s)
	}
	for _, bit := range []bool{false, true} {
		child, err := s.ref()
		if err != nil {
			return err
		}
		k := key.Copy()
		if err := k.WriteBit(bit); err != nil {
			return err
		}
		if err := r.dict(child, m-1, k, visit); err != nil {
			return err
		}
	}
	return nil
}

// label reads an HmLabel of at most n bits onto key and returns its length.
//
//	hml_short$0 len:(Unary ~n) s:(n * Bit);  hml_long$10 n:(#<= m) s:(n * Bit);
//	hml_same$11 v:Bit n:(#<= m);
func label(b *boc.BitString, n int, key *boc.BitString) (int, error) {
	first, err := b.ReadBit()
	if err != nil {
		return 0, err
	}
	if !first {
		l, err := b.ReadUnary()
		if err != nil {
			return 0, err
		}
		return copyBits(b, int(l), n, key)
	}
	second, err := b.ReadBit()
	if err != nil {
		return 0, err
	}
	if !second {
		l, err := b.ReadLimUint(n)
		if err != nil {
			return 0, err
		}
		return copyBits(b, int(l), n, key)
	}
	v, err := b.ReadBit()
	if err != nil {
		return 0, err
	}
	l, err := b.ReadLimUint(n)
	if err != nil {
		return 0, err
	}
	if int(l) > n {
		return 0, errors.New("label longer than the key")
	}
	for range int(l) {
		if err := key.WriteBit(v); err != nil {
			return 0, err
		}
	}
	return int(l), nil
}

func copyBits(b *boc.BitString, l, n int, key *boc.BitString) (int, error) {
	if l > n {
		return 0, errors.New("label longer than the key")
	}
	for range l {
		bit, err := b.ReadBit()
		if err != nil {
			return 0, err
		}
		if err := key.WriteBit(bit); err != nil {
			return 0, err
		}
	}
	return l, nil
}
