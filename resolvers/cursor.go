package resolvers

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/tonql/tonql/store"
)

// A cursor is an action's sort key, end_lt and action_id, as opaque
// url-safe base64 ("<end_lt>:<action_id>" inside).

func encodeCursor(k store.ActionKey) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatUint(k.EndLt, 10) + ":" + k.ActionID))
}

var errCursor = errors.New("not a cursor of this API (pass pageInfo.endCursor as it came)")

func decodeCursor(s string) (store.ActionKey, error) {
	if len(s) > 256 {
		return store.ActionKey{}, errCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return store.ActionKey{}, errCursor
	}
	lt, id, ok := strings.Cut(string(b), ":")
	if !ok || id == "" || len(id) > 128 || !plainText(id) {
		return store.ActionKey{}, errCursor
	}
	n, err := strconv.ParseUint(lt, 10, 63)
	if err != nil {
		return store.ActionKey{}, errCursor
	}
	return store.ActionKey{EndLt: n, ActionID: id}, nil
}
