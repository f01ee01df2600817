package chain

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// Hash is a 256-bit hash: of a transaction, a message, a cell, or a trace
// (a trace's id is the hash of its root transaction).
type Hash [32]byte

// Base64 is the standard-alphabet, padded form used in every response.
func (h Hash) Base64() string { return base64.StdEncoding.EncodeToString(h[:]) }

// Hex is the lower-case hex form.
func (h Hash) Hex() string { return hex.EncodeToString(h[:]) }

func (h Hash) IsZero() bool { return h == Hash{} }

func (h Hash) String() string { return h.Base64() }

// ParseHash accepts 64 hex digits or base64 of 32 bytes in either alphabet,
// padded or not.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) == 64 {
		if b, err := hex.DecodeString(s); err == nil {
			copy(h[:], b)
			return h, nil
		}
	}
	t, enc := base64Form(s)
	if len(t) != hashBase64Len {
		// No other length decodes to 32 bytes: say only whether it is
		// base64 at all.
		if _, err := enc.DecodeString(t); err != nil {
			return h, errNotHash
		}
		return h, errHashLength
	}
	// Decoded in place: the store reads several hashes for every row a
	// page returns (docs/PERFORMANCE.md, the traces page). The copy keeps
	// the bytes on the stack, where converting t would allocate them.
	var src [hashBase64Len]byte
	copy(src[:], t)
	if _, err := enc.Decode(h[:], src[:]); err != nil {
		return Hash{}, errNotHash
	}
	return h, nil
}

// hashBase64Len is base64.RawStdEncoding.EncodedLen(32).
const hashBase64Len = 43

var (
	errNotHash    = errors.New("not 64 hex digits nor base64")
	errHashLength = errors.New("must encode 32 bytes")
)

// DecodeBase64 decodes standard or url-safe base64, with or without padding.
func DecodeBase64(s string) ([]byte, error) {
	s, enc := base64Form(s)
	return enc.DecodeString(s)
}

// base64Form is s without its padding, and the alphabet it is written in.
func base64Form(s string) (string, *base64.Encoding) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return s, base64.RawURLEncoding
	}
	return s, base64.RawStdEncoding
}
