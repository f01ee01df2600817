package fees

import (
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// Limits of one BOC field. They follow what the chain itself accepts for an
// external message (liteservers drop messages over 64 KiB; config param 43
// caps message depth at 512 and cells at 8192), so anything rejected here
// could never have been sent.
const (
	maxBOCBytes = 65535
	maxCells    = 8192
	maxDepth    = 512
)

// checkBOC decodes base64 (either alphabet, padding optional) of a BOC with
// exactly one root and returns the BOC bytes.
func checkBOC(field, s string) ([]byte, error) {
	if len(s) > maxStringLen {
		return nil, apperr.Field(field, "too long")
	}
	b, err := chain.DecodeBase64(s)
	if err != nil {
		return nil, apperr.Field(field, "not base64 (standard or url-safe)")
	}
	if len(b) > maxBOCBytes {
		return nil, apperr.Field(field, "BOC is %d bytes, over the %d a message may carry", len(b), maxBOCBytes)
	}
	if _, err := decodeRoot(b); err != nil {
		return nil, apperr.Field(field, "%v", err)
	}
	return b, nil
}

// decodeRoot deserializes a BOC of untrusted origin into its single root,
// checking shape limits. tongo's decoder was not written for hostile input,
// so a panic inside it becomes an error here.
func decodeRoot(b []byte) (root *boc.Cell, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, errors.New("not a valid BOC")
		}
	}()
	if root, err = deserializeRoot(b); err != nil {
		return nil, err
	}
	if err := checkShape(root); err != nil {
		return nil, err
	}
	// Hashing walks every cell and validates exotic cells' layouts; a BOC the
	// emulator would choke on fails here instead.
	if _, err := root.Hash256(); err != nil {
		return nil, errors.New("not a valid BOC (bad cell)")
	}
	return root, nil
}

// deserializeRoot is decodeRoot without the shape and hash checks, for
// bytes that already passed them (see Request.decode): the same bytes
// always give the same cells, so checking them again proves nothing.
func deserializeRoot(b []byte) (*boc.Cell, error) { return chain.DecodeRoot(b) }

// checkShape bounds the distinct cells and the depth of a cell DAG and rejects
// cycles. The walk
// memoizes depths per cell, so shared subtrees cost once.
func checkShape(root *boc.Cell) error {
	depth := map[*boc.Cell]int{}
	var walk func(c *boc.Cell) (int, error)
	walk = func(c *boc.Cell) (int, error) {
		if d, ok := depth[c]; ok {
			if d < 0 {
				// tongo lets a cell reference itself; hashing it would never end
				return 0, errors.New("not a valid BOC (cell cycle)")
			}
			return d, nil
		}
		if len(depth) >= maxCells {
			return 0, fmt.Errorf("BOC has over %d cells", maxCells)
		}
		depth[c] = -1 // on the current path
		d := 0
		for _, ref := range c.Refs() {
			rd, err := walk(ref)
			if err != nil {
				return 0, err
			}
			if rd+1 > d {
				d = rd + 1
			}
		}
		if d > maxDepth {
			return 0, fmt.Errorf("BOC is deeper than %d cells", maxDepth)
		}
		depth[c] = d
		return d, nil
	}
	_, err := walk(root)
	return err
}
