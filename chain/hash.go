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
	if t := strings.TrimRight(s, "="); len(t) == base64.RawStdEncoding.EncodedLen(len(h)) {
		// The stored form, read for every hash of every row a page
		// returns: decoded in place, without the allocations of
		// DecodeBase64 (docs/PERFORMANCE.md, the traces page).
		var src [43]byte
		copy(src[:], t)
		enc := base64.RawStdEncoding
		if strings.ContainsAny(t, "-_") {
			enc = base64.RawURLEncoding
		}
		if _, err := enc.Decode(h[:], src[:]); err != nil {
			return Hash{}, errNotHash
		}
		return h, nil
	}
	b, err := DecodeBase64(s)
	if err != nil {
		return h, errNotHash
	}
	if len(b) != 32 {
		return h, errHashLength
	}
	copy(h[:], b)
	return h, nil
}

var (
	errNotHash    = errors.New("not 64 hex digits nor base64")
	errHashLength = errors.New("must encode 32 bytes")
)

// DecodeBase64 decodes standard or url-safe base64, with or without padding.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}
