package store

import (
	"errors"
	"strconv"
	"strings"
)

// The facts of rows imported from trace JSON (txFacts, msgFacts) are read
// for every transaction and message of a page; json.Unmarshal of each
// was 4-8% of the server's CPU on the transactions and traces pages
// (docs/PERFORMANCE.md, "eighth sitting"). The facts are flat objects the
// store wrote itself, so they are read here by a small scanner; anything
// it does not know (an escape, a nested value such as extra_currencies,
// a key it does not expect) makes it give up, and the caller then uses
// json.Unmarshal as before.

// scanFlat calls set for each member of a flat JSON object whose values
// are unsigned or negative integers, true/false, or strings without
// escapes; raw is the value's text (a string without its quotes, quoted
// then true). It
// reports false when text is not such an object or set refuses a member.
func scanFlat(text string, set func(key, raw string, quoted bool) bool) bool {
	s := strings.TrimSpace(text)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return false
	}
	s = s[1 : len(s)-1]
	if strings.TrimSpace(s) == "" {
		return true
	}
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if len(s) == 0 || s[0] != '"' {
			return false
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return false
		}
		key := s[1 : 1+end]
		if strings.IndexByte(key, '\\') >= 0 {
			return false
		}
		s = strings.TrimLeft(s[2+end:], " \t\r\n")
		if len(s) == 0 || s[0] != ':' {
			return false
		}
		s = strings.TrimLeft(s[1:], " \t\r\n")
		var raw string
		quoted := len(s) > 0 && s[0] == '"'
		switch {
		case len(s) > 0 && s[0] == '"':
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return false
			}
			raw, s = s[1:1+end], s[2+end:]
			if strings.IndexByte(raw, '\\') >= 0 {
				return false
			}
		default:
			n := strings.IndexAny(s, ", \t\r\n")
			if n < 0 {
				n = len(s)
			}
			raw, s = s[:n], s[n:]
			if raw != "true" && raw != "false" {
				if _, err := strconv.ParseInt(raw, 10, 64); err != nil {
					if _, err := strconv.ParseUint(raw, 10, 64); err != nil {
						return false
					}
				}
			}
		}
		if !set(key, raw, quoted) {
			return false
		}
		s = strings.TrimLeft(s, " \t\r\n")
		if len(s) == 0 {
			return true
		}
		if s[0] != ',' {
			return false
		}
		s = s[1:]
	}
}

// scanTxFacts reads the facts scanFlat can; false: use json.Unmarshal.
func scanTxFacts(text string, f *txFacts) bool {
	return scanFlat(text, func(key, raw string, quoted bool) bool {
		if quoted != (key == "prev_hash") {
			return false // json.Unmarshal would refuse the type
		}
		var err error
		switch key {
		case "prev_hash":
			f.PrevHash = raw
		case "prev_lt":
			f.PrevLt, err = strconv.ParseUint(raw, 10, 64)
		case "compute_skipped":
			f.ComputeSkipped, err = jsonBool(raw)
		case "compute_success":
			f.ComputeSuccess, err = jsonBool(raw)
		case "action_success":
			f.ActionSuccess, err = jsonBool(raw)
		case "action_result":
			var n int64
			n, err = strconv.ParseInt(raw, 10, 32)
			f.ActionResult = int32(n)
		case "destroyed":
			f.Destroyed, err = jsonBool(raw)
		case "bounced":
			f.Bounced, err = jsonBool(raw)
		default:
			return false
		}
		return err == nil
	})
}

// scanMsgFacts is scanTxFacts for a message (extra_currencies, an object,
// is left to json.Unmarshal).
func scanMsgFacts(text string, f *msgFacts) bool {
	return scanFlat(text, func(key, raw string, quoted bool) bool {
		if quoted {
			return false
		}
		var err error
		switch key {
		case "ihr_fee":
			f.IhrFee, err = strconv.ParseUint(raw, 10, 64)
		case "created_at":
			var n uint64
			n, err = strconv.ParseUint(raw, 10, 32)
			f.CreatedAt = uint32(n)
		default:
			return false
		}
		return err == nil
	})
}

var errNotBool = errors.New("not a JSON boolean")

// jsonBool accepts JSON's true and false only (strconv.ParseBool also
// takes "1", "t", ...).
func jsonBool(raw string) (bool, error) {
	switch raw {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errNotBool
}
