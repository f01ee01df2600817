package decode

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/chain"
)

// Unknown is the name of an op code no decoder knows, as toncenter
// answers it.
const Unknown = "unknown"

// Opcode names an internal message op code in snake case (tongo's
// JettonTransfer is jetton_transfer), or Unknown.
func Opcode(op uint32) string {
	if name, ok := opNames[op]; ok {
		return snake(name)
	}
	return Unknown
}

// Body decodes a message body given as a BOC in base64 or hex: an object
// with "@type" (the op's name) and the body's fields in snake case, or,
// as toncenter answers a body it cannot read, {"error": "unknown: why"}.
// A bad body is an answer, not a failure: the other bodies of a request
// still decode.
func Body(s string) map[string]any {
	cell, err := parseCell(strings.TrimSpace(s))
	if err != nil {
		return failed("%v", err)
	}
	if cell.BitSize() == 0 && cell.RefsSize() == 0 {
		return map[string]any{"@type": "empty_cell"}
	}
	if cell.BitSize() < 32 {
		return failed("boc is too small, size %d", cell.BitSize())
	}
	_, name, value, err := abi.InternalMessageDecoder(cell, nil)
	if err != nil || name == nil {
		return failed("no parser succeeded")
	}
	out := map[string]any{}
	if raw, err := json.Marshal(value); err == nil {
		var fields any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber() // a 64-bit query id is not a float
		if d.Decode(&fields) == nil {
			if m, ok := snakeKeys(fields).(map[string]any); ok {
				out = m
			}
		}
	}
	out["@type"] = snake(string(*name))
	return out
}

func failed(format string, args ...any) map[string]any {
	return map[string]any{"error": Unknown + ": " + fmt.Sprintf(format, args...)}
}

// parseCell reads a one-root BOC from hex or base64 (standard or url-safe).
func parseCell(s string) (*boc.Cell, error) {
	var raw []byte
	if b, err := hex.DecodeString(s); err == nil && s != "" {
		raw = b
	} else if b, err := chain.DecodeBase64(s); err == nil {
		raw = b
	} else {
		return nil, fmt.Errorf("not a BOC in base64 or hex")
	}
	cells, err := boc.DeserializeBoc(raw)
	if err != nil {
		return nil, fmt.Errorf("failed to deserialize boc: %v", err)
	}
	if len(cells) != 1 {
		return nil, fmt.Errorf("a BOC with %d roots", len(cells))
	}
	return cells[0], nil
}

// snakeKeys renames the keys of decoded objects as toncenter spells TL-B
// fields (QueryId -> query_id).
func snakeKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[snake(k)] = snakeKeys(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = snakeKeys(x)
		}
	}
	return v
}

// snake turns a Go name into snake case, a run of capitals being one
// word: ForwardTonAmount -> forward_ton_amount, NFTPayload -> nft_payload.
func snake(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && !unicode.IsUpper(rs[i-1]) && rs[i-1] != '_'
			endOfRun := i > 0 && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || endOfRun {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// opNames names each internal op code tongo decodes.
var opNames = func() map[uint32]string {
	m := make(map[uint32]string, len(opEntries))
	for _, e := range opEntries {
		if _, ok := m[e.op]; !ok {
			m[e.op] = e.name
		}
	}
	return m
}()
