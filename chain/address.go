package chain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tonkeeper/tongo/ton"
)

// ParseAddress accepts the raw form "wc:hex" (exactly 64 hex digits, any case)
// or the 48-character user-friendly form in either base64 alphabet with its
// CRC checked. tongo does the decoding; the strictness is ours, because tongo
// also accepts short raw forms by left-padding them.
func ParseAddress(s string) (ton.AccountID, error) {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		if len(s)-i-1 != 64 {
			return ton.AccountID{}, errors.New("raw address needs 64 hex digits after the colon")
		}
		id, err := ton.AccountIDFromRaw(s)
		if err != nil {
			return ton.AccountID{}, fmt.Errorf("bad raw address: %v", err)
		}
		if id.Workchain < -128 || id.Workchain > 127 {
			return ton.AccountID{}, errors.New("workchain out of range")
		}
		return id, nil
	}
	if len(s) != 48 {
		return ton.AccountID{}, errors.New("not a raw (wc:hex) or 48-character user-friendly address")
	}
	id, err := ton.AccountIDFromBase64Url(s)
	if err != nil {
		return ton.AccountID{}, fmt.Errorf("bad user-friendly address: %v", err)
	}
	return id, nil
}

// RawAddress is the form used in every response and in the store: "0:ABCD..."
// (workchain, colon, 64 upper-case hex digits).
func RawAddress(id ton.AccountID) string {
	return fmt.Sprintf("%d:%X", id.Workchain, id.Address[:])
}

// NormalizeAddress parses any accepted form and returns the raw upper-case form.
func NormalizeAddress(s string) (string, error) {
	id, err := ParseAddress(s)
	if err != nil {
		return "", err
	}
	return RawAddress(id), nil
}
