package metadata

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tep64"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/tokenfixture"
)

// tsTONMaster is Tonstakers' tsTON jetton master,
// EQC98_qAmNEptUtPc7W6xdHh_ZHrBUFpw5Ft_IzNU20QAJav as tonstakers.com and
// tonviewer.com publish it.
const tsTONMaster = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"

// TestParseRealContents parses the content of every jetton master and NFT
// collection in the fee-replay block and checks each value against
// tongo's own TEP-64 decoder (tep64.DecodeFullContentFromCell), an
// implementation independent of ours, run on the same cell.
func TestParseRealContents(t *testing.T) {
	contents := fixtureContents(t)
	layouts := map[string]int{}
	for _, rc := range contents {
		c, err := Parse(rc.Content)
		require.NoError(t, err, rc.Address)
		layouts[rc.Kind+"/"+c.Layout]++

		cell, err := boc.DeserializeSingleRootBoc(rc.Content) // tongo's decoder moves the cell's cursor: a fresh one each time
		require.NoError(t, err)
		want, err := tep64.DecodeFullContentFromCell(cell)
		require.NoError(t, err, rc.Address)
		switch want.Layout {
		case tep64.OffChain:
			require.Equal(t, chain.MetadataOffchain, c.Layout, rc.Address)
			require.Equal(t, want.OffchainURL, c.URI, rc.Address)
			require.Empty(t, c.Attrs)
		case tep64.SemiChain, tep64.OnChain:
			m := want.OnchainMetadata
			layout := chain.MetadataOnchain
			if want.Layout == tep64.SemiChain {
				layout = chain.MetadataSemichain
			}
			require.Equal(t, layout, c.Layout, rc.Address)
			require.Equal(t, m.Uri, c.URI, rc.Address)
			for name, v := range map[string]string{"name": m.Name, "symbol": m.Symbol, "description": m.Description,
				"image": m.Image, "decimals": m.Decimals, "render_type": m.RenderType, "amount_style": m.AmountStyle,
				"image_data": base64.StdEncoding.EncodeToString(m.ImageData)} {
				got, ok := c.Attrs[name]
				if v == "" {
					require.False(t, ok && got != "", "%s %s: tongo reads none, we read %q", rc.Address, name, got)
					continue
				}
				require.Equal(t, v, got, "%s %s", rc.Address, name)
			}
		default:
			t.Fatalf("%s: tongo reads layout %v", rc.Address, want.Layout)
		}
		t.Logf("%s %s %s uri=%q attrs=%v", rc.Address, rc.Kind, c.Layout, c.URI, c.Attrs)
	}
	// The block holds semi-chain jetton masters and an off-chain NFT
	// collection: both layouts are exercised on real data.
	require.Positive(t, layouts[chain.TokenJettonMaster+"/"+chain.MetadataSemichain], layouts)
	require.Positive(t, layouts[chain.TokenNftCollection+"/"+chain.MetadataOffchain], layouts)
}

// TestParseTsTON checks what a person can verify about tsTON: its symbol
// and name are what tonstakers.com shows, its content links the JSON at
// tonstakers.com, and it states 9 decimals (tongo's
// tep64/metadata_test.go reads the same values from the same cell).
func TestParseTsTON(t *testing.T) {
	for _, rc := range fixtureContents(t) {
		if rc.Address != tsTONMaster {
			continue
		}
		c, err := Parse(rc.Content)
		require.NoError(t, err)
		require.Equal(t, chain.MetadataSemichain, c.Layout)
		require.Equal(t, "tsTON", c.Attrs["symbol"])
		require.Equal(t, "Tonstakers TON", c.Attrs["name"])
		require.Equal(t, "9", c.Attrs["decimals"])
		require.True(t, strings.HasPrefix(c.URI, "https://tonstakers.com/"), c.URI)
		return
	}
	t.Fatal("tsTON's master is not among the block's jetton masters")
}

// onchainCell encodes attributes as TEP-64 on-chain content with tongo's
// TL-B encoder (snake values split across cells by tongo), so the parser
// is checked against an encoder that is not ours.
func onchainCell(t *testing.T, attrs map[string]string) *boc.Cell {
	t.Helper()
	var keys []tlb.Bits256
	var vals []tlb.Ref[tlb.ContentData]
	for _, name := range byKey(attrs) {
		v := attrs[name]
		keys = append(keys, tlb.Bits256(sha256.Sum256([]byte(name))))
		var cd tlb.ContentData
		cd.SumType = "Snake"
		bs := boc.NewBitString(len(v) * 8)
		require.NoError(t, bs.WriteBytes([]byte(v)))
		cd.Snake.Data = tlb.SnakeData(bs)
		vals = append(vals, tlb.Ref[tlb.ContentData]{Value: cd})
	}
	var fc tlb.FullContent
	fc.SumType = "Onchain"
	fc.Onchain.Data = tlb.NewHashmapE(keys, vals)
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, fc))
	return c
}

// byKey orders attribute names by their on-chain keys: tongo's dictionary
// encoder takes keys in order.
func byKey[V any](m map[string]V) []string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int {
		ka, kb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
		return bytes.Compare(ka[:], kb[:])
	})
	return names
}

func toBoc(t *testing.T, c *boc.Cell) []byte {
	t.Helper()
	b, err := c.ToBoc()
	require.NoError(t, err)
	return b
}

func TestParseSnakeAcrossCells(t *testing.T) {
	long := strings.Repeat("Снег на крышах, snow on roofs. ", 200) // ~6 KB, multi-byte runes split across cells
	c, err := Parse(toBoc(t, onchainCell(t, map[string]string{"name": "Long", "description": long, "decimals": "6"})))
	require.NoError(t, err)
	require.Equal(t, chain.MetadataOnchain, c.Layout)
	require.Equal(t, long, c.Attrs["description"])
	require.Equal(t, "Long", c.Attrs["name"])
	require.Equal(t, "6", c.Attrs["decimals"])
}

func TestParseOffchainSnakeURI(t *testing.T) {
	uri := "https://example.com/" + strings.Repeat("p", 300) + ".json" // longer than one cell
	b, err := tokenfixture.Offchain(uri)
	require.NoError(t, err)
	cell, err := boc.DeserializeSingleRootBoc(b)
	require.NoError(t, err)
	require.Positive(t, cell.RefsSize(), "the uri must span cells for this test")
	c, err := Parse(b)
	require.NoError(t, err)
	require.Equal(t, chain.MetadataOffchain, c.Layout)
	require.Equal(t, uri, c.URI)
}

// chunkedValue is a ContentData cell in the chunked encoding: tag 0x01,
// then a dictionary of 32-bit indexes to one-cell chunks (tongo encodes
// the dictionary).
func chunkedValue(t *testing.T, chunks ...string) *boc.Cell {
	t.Helper()
	var keys []tlb.Uint32
	var vals []tlb.Ref[tlb.Any]
	for i, ch := range chunks {
		cc := boc.NewCell()
		require.NoError(t, cc.WriteBytes([]byte(ch)))
		keys = append(keys, tlb.Uint32(i))
		vals = append(vals, tlb.Ref[tlb.Any]{Value: tlb.Any(*cc)})
	}
	v := boc.NewCell()
	require.NoError(t, v.WriteUint(1, 8))
	require.NoError(t, tlb.Marshal(v, tlb.NewHashmapE(keys, vals)))
	return v
}

// rawOnchain builds on-chain content whose values are given cells, each
// by reference (standard) or in place (inPlace names).
func rawOnchain(t *testing.T, values map[string]*boc.Cell, inPlace map[string]bool) *boc.Cell {
	t.Helper()
	var keys []tlb.Bits256
	var vals []tlb.Any
	for _, name := range byKey(values) {
		v := values[name]
		keys = append(keys, tlb.Bits256(sha256.Sum256([]byte(name))))
		holder := boc.NewCell()
		if inPlace[name] {
			holder = v
		} else {
			require.NoError(t, holder.AddRef(v))
		}
		vals = append(vals, tlb.Any(*holder))
	}
	root := boc.NewCell()
	require.NoError(t, root.WriteUint(0, 8))
	require.NoError(t, tlb.Marshal(root, tlb.NewHashmapE(keys, vals)))
	return root
}

func snakeValue(t *testing.T, b []byte) *boc.Cell {
	t.Helper()
	var cd tlb.ContentData
	cd.SumType = "Snake"
	bs := boc.NewBitString(len(b) * 8)
	require.NoError(t, bs.WriteBytes(b))
	cd.Snake.Data = tlb.SnakeData(bs)
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, cd))
	return c
}

func TestParseChunkedAndInPlaceValues(t *testing.T) {
	root := rawOnchain(t, map[string]*boc.Cell{
		"name":        chunkedValue(t, "Chunked ", "Token ", "Name"),
		"symbol":      snakeValue(t, []byte("CHK")),
		"description": snakeValue(t, []byte("stored in place")),
	}, map[string]bool{"description": true})
	c, err := Parse(toBoc(t, root))
	require.NoError(t, err)
	require.Equal(t, "Chunked Token Name", c.Attrs["name"])
	require.Equal(t, "CHK", c.Attrs["symbol"])
	require.Equal(t, "stored in place", c.Attrs["description"], "a value stored without its reference, as some contracts do")
}

func TestParseAttributeKinds(t *testing.T) {
	img := []byte{0x89, 'P', 'N', 'G', 0xff, 0x00}
	root := rawOnchain(t, map[string]*boc.Cell{
		"name":          snakeValue(t, []byte{0xff, 0xfe}), // not UTF-8
		"image_data":    snakeValue(t, img),
		"my_own_field":  snakeValue(t, []byte("custom")),
		"symbol":        snakeValue(t, []byte("OK")),
		"uri":           snakeValue(t, []byte("ipfs://bafy/meta.json")),
		"render_type":   snakeValue(t, []byte("currency")),
		"not_chunks_01": func() *boc.Cell { c := boc.NewCell(); _ = c.WriteUint(7, 8); return c }(),
	}, nil)
	c, err := Parse(toBoc(t, root))
	require.NoError(t, err)
	require.Equal(t, chain.MetadataSemichain, c.Layout)
	require.Equal(t, "ipfs://bafy/meta.json", c.URI)
	require.Equal(t, base64.StdEncoding.EncodeToString(img), c.Attrs["image_data"])
	require.Equal(t, "OK", c.Attrs["symbol"])
	require.Equal(t, "currency", c.Attrs["render_type"])
	require.Equal(t, "not_utf8", c.Skipped["name"])
	require.NotContains(t, c.Attrs, "name")
	h := sha256.Sum256([]byte("my_own_field"))
	require.Equal(t, "custom", c.Unknown[hex.EncodeToString(h[:])])
	h = sha256.Sum256([]byte("not_chunks_01"))
	require.Equal(t, "bad_encoding", c.Skipped[hex.EncodeToString(h[:])])
}

// snakeOf is a snake#00 ContentData holding data in a chain of 127-byte
// cells, built by hand (tongo's encoder is slow at 64 KB).
func snakeOf(t *testing.T, data []byte) *boc.Cell {
	t.Helper()
	var tail *boc.Cell
	for end := len(data); end > 0; end -= 127 {
		c := boc.NewCell()
		require.NoError(t, c.WriteBytes(data[max(0, end-127):end]))
		if tail != nil {
			require.NoError(t, c.AddRef(tail))
		}
		tail = c
	}
	value := boc.NewCell()
	require.NoError(t, value.WriteUint(0, 8)) // snake#00, its data from the next cell on
	require.NoError(t, value.AddRef(tail))
	return value
}

func TestParseTooLargeValueIsSkipped(t *testing.T) {
	data := []byte(strings.Repeat("x", maxValueBytes+1))
	root := rawOnchain(t, map[string]*boc.Cell{"description": snakeOf(t, data), "symbol": snakeValue(t, []byte("BIG"))}, nil)
	c, err := Parse(toBoc(t, root))
	require.NoError(t, err)
	require.Equal(t, "too_large", c.Skipped["description"])
	require.Equal(t, "BIG", c.Attrs["symbol"])

	// At the bound, the value is read whole.
	c, err = Parse(toBoc(t, rawOnchain(t, map[string]*boc.Cell{"description": snakeOf(t, data[:maxValueBytes])}, nil)))
	require.NoError(t, err)
	require.Equal(t, string(data[:maxValueBytes]), c.Attrs["description"])
}

// TestParseSharedCellsAreBounded: a dictionary whose two forks are the
// same cell at each of its 256 levels holds 2^256 leaves in 257 cells; the
// parse must stop at its budget, not walk them.
func TestParseSharedCellsAreBounded(t *testing.T) {
	node := boc.NewCell()
	require.NoError(t, node.WriteUint(0, 2)) // hml_short, empty label
	require.NoError(t, node.AddRef(snakeValue(t, []byte("v"))))
	for range 256 {
		up := boc.NewCell()
		require.NoError(t, up.WriteUint(0, 2))
		require.NoError(t, up.AddRef(node))
		require.NoError(t, up.AddRef(node))
		node = up
	}
	root := boc.NewCell()
	require.NoError(t, root.WriteUint(0, 8))
	require.NoError(t, root.WriteBit(true))
	require.NoError(t, root.AddRef(node))
	b := toBoc(t, root)
	require.Less(t, len(b), 4096)
	_, err := Parse(b)
	require.ErrorIs(t, err, ErrContent)
}

func TestParseErrors(t *testing.T) {
	cell := func(bits ...uint64) []byte {
		c := boc.NewCell()
		for _, b := range bits {
			require.NoError(t, c.WriteUint(b, 8))
		}
		return toBoc(t, c)
	}
	for name, b := range map[string][]byte{
		"empty input":          nil,
		"not a BOC":            []byte("hello"),
		"no layout byte":       cell(),
		"unknown layout":       cell(0x02),
		"onchain without dict": cell(0x00),
		"dict without ref":     cell(0x00, 0x80),
		"offchain bits":        func() []byte { c := boc.NewCell(); _ = c.WriteUint(1, 8); _ = c.WriteUint(1, 3); return toBoc(t, c) }(),
		"offchain not utf8":    cell(0x01, 0xff),
	} {
		_, err := Parse(b)
		require.ErrorIs(t, err, ErrContent, name)
	}
}

func TestNewTokenContentHashIsTheCells(t *testing.T) {
	c := onchainCell(t, map[string]string{"name": "A"})
	plain := toBoc(t, c)
	withCRC, err := c.ToBocCustom(true, true, false, 0)
	require.NoError(t, err)
	require.NotEqual(t, plain, withCRC)
	a, err := NewTokenContent(tsTONMaster, chain.TokenJettonMaster, plain)
	require.NoError(t, err)
	b, err := NewTokenContent(strings.ToLower(tsTONMaster), chain.TokenJettonMaster, withCRC)
	require.NoError(t, err)
	require.Equal(t, a.ContentHash, b.ContentHash, "one cell, two serializations: one content")
	require.Equal(t, tsTONMaster, b.Address)
	h, err := c.Hash256()
	require.NoError(t, err)
	require.Equal(t, chain.Hash(h), a.ContentHash)

	_, err = NewTokenContent(tsTONMaster, "jetton_wallet", plain)
	require.ErrorContains(t, err, "kind")
	_, err = NewTokenContent("nope", chain.TokenJettonMaster, plain)
	require.ErrorContains(t, err, "address")
	_, err = NewTokenContent(tsTONMaster, chain.TokenJettonMaster, []byte("x"))
	require.ErrorContains(t, err, "content")
}
