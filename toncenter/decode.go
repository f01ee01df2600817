package toncenter

// DecodeResponse is the answer of /api/v3/decode: a name per op code
// asked ("unknown" when none), an object per body ({"@type": name,
// fields...}, or {"error": "unknown: why"}), in the order asked.
type DecodeResponse struct {
	Opcodes []string         `json:"opcodes"`
	Bodies  []map[string]any `json:"bodies"`
}
