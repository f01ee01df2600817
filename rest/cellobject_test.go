package rest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/getmethod"
)

// A cell tree written as an object (by getmethod, as the stack renders it) packs back
// into the same cell: same hash.
func TestCellObjectPacksTheSameCell(t *testing.T) {
	c := boc.NewCell()
	require.NoError(t, c.WriteUint(0x0f8a7ea5, 32))
	require.NoError(t, c.WriteUint(5, 3)) // 35 bits: a partial last byte
	for i := 0; i < 3; i++ {
		r := boc.NewCell()
		require.NoError(t, r.WriteUint(uint64(i), 8+i))
		if i == 1 {
			rr := boc.NewCell()
			require.NoError(t, rr.WriteBytes([]byte("deep")))
			require.NoError(t, r.AddRef(rr))
		}
		require.NoError(t, c.AddRef(r))
	}
	obj, ok := getmethod.CellObject(c)
	require.True(t, ok)
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	p := params{"body": raw}
	got, err := cellObjectBOC(p, "body")
	require.NoError(t, err)
	cells, err := boc.DeserializeBocBase64(got)
	require.NoError(t, err)
	want, _ := c.Hash()
	have, _ := cells[0].Hash()
	require.Equal(t, want, have)
}

// Every malformed cell object is a 422 naming the parameter.
func TestCellObjectRefusals(t *testing.T) {
	deep := `{"data":{"b64":"","len":0},"refs":[]}`
	for i := 0; i < maxObjectDepth+1; i++ {
		deep = `{"data":{"b64":"","len":0},"refs":[` + deep + `]}`
	}
	ref := `{"data":{"b64":"","len":0}}`
	for name, obj := range map[string]string{
		"not an object":  `"te6cc..."`,
		"no data":        `{"refs":[]}`,
		"bad base64":     `{"data":{"b64":"***","len":8}}`,
		"len over bytes": `{"data":{"b64":"AA==","len":9}}`,
		"len negative":   `{"data":{"b64":"AA==","len":-1}}`,
		"len over 1023":  `{"data":{"b64":"` + strings.Repeat("A", 172) + `","len":1024}}`,
		"five refs":      `{"data":{"b64":"","len":0},"refs":[` + strings.Repeat(ref+",", 4) + ref + `]}`,
		"too deep":       deep,
	} {
		_, err := cellObjectBOC(params{"body": json.RawMessage(obj)}, "body")
		require.Error(t, err, name)
		var e *apperr.Error
		require.ErrorAs(t, err, &e, name)
		require.Equal(t, "body", e.Field, name)
	}
	s, err := cellObjectBOC(params{"body": json.RawMessage("null")}, "body")
	require.NoError(t, err)
	require.Empty(t, s)
}
