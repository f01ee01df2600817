package chain

import (
	"errors"
	"strconv"
	"strings"
)

var errOpcode = errors.New("must be a 32-bit op code in hex (0x...) or decimal")

// ParseOpcode reads a 32-bit op code as toncenter takes it: 0x-hex, or
// decimal, signed or unsigned; the unsigned value is returned.
func ParseOpcode(s string) (uint32, error) {
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		n, err := strconv.ParseUint(h, 16, 32)
		if err != nil {
			return 0, errOpcode
		}
		return uint32(n), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < -1<<31 || n > 1<<32-1 {
		return 0, errOpcode
	}
	return uint32(n), nil
}
