package chain

import "github.com/tonkeeper/tongo/boc"

// EmptyCellBOC is the BOC of a cell with no bits and no refs: the body of
// a message that carries none, as toncenter and tonlib show it.
var EmptyCellBOC = func() []byte {
	b, _ := boc.NewCell().ToBoc()
	return b
}()

// RootHash is the hash of a one-root BOC's root cell; false when b is not
// such a BOC (never a panic: see DecodeRoot).
func RootHash(b []byte) (Hash, bool) {
	root, err := DecodeRoot(b)
	if err != nil {
		return Hash{}, false
	}
	h, err := CellHash(root)
	return h, err == nil
}

// BodyHash is the hash of a message body's cell (toncenter's
// message_content.hash, and what its body_hash filters select); an
// absent body is the empty cell.
func BodyHash(body []byte) (Hash, bool) {
	if len(body) == 0 {
		body = EmptyCellBOC
	}
	return RootHash(body)
}
