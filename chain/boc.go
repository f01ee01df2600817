package chain

import (
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
)

// DecodeRoot deserializes a BOC of untrusted origin into its single root.
// tongo's decoder was not written for hostile input (a truncated header
// indexes past its slice), so a panic inside it becomes an error here.
func DecodeRoot(b []byte) (root *boc.Cell, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, errors.New("not a valid BOC")
		}
	}()
	cells, err := boc.DeserializeBoc(b)
	if err != nil {
		return nil, errors.New("not a valid BOC")
	}
	if len(cells) != 1 {
		return nil, fmt.Errorf("BOC must have exactly one root, has %d", len(cells))
	}
	return cells[0], nil
}

// CellHash is a cell's representation hash; a malformed cell (an exotic
// cell with a bad layout) is an error, never a panic.
func CellHash(c *boc.Cell) (h Hash, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("not a valid cell")
		}
	}()
	return c.Hash256()
}
