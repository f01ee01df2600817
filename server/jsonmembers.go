package server

import "encoding/json"

// jsonMembers calls fn with the name and the value's text of each member
// of obj, in order. obj must be a valid JSON object (json.Valid): the walk
// trusts its syntax and only finds where each token ends. A name with an
// escape is decoded; the others are their text.
func jsonMembers(obj []byte, fn func(name, value []byte)) {
	i := skipJSONSpace(obj, 1)
	for obj[i] != '}' {
		end := skipJSONString(obj, i)
		name := obj[i+1 : end-1]
		for _, c := range name {
			if c == '\\' {
				var s string
				_ = json.Unmarshal(obj[i:end], &s) // valid: cannot fail
				name = []byte(s)
				break
			}
		}
		i = skipJSONSpace(obj, skipJSONSpace(obj, end)+1) // past the ':'
		end = skipJSONValue(obj, i)
		fn(name, obj[i:end])
		i = skipJSONSpace(obj, end)
		if obj[i] == ',' {
			i = skipJSONSpace(obj, i+1)
		}
	}
}

// skipJSONSpace is the first index from i that is not JSON whitespace.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSONString is the index just past the string that starts at i.
func skipJSONString(b []byte, i int) int {
	for i++; ; i++ {
		switch b[i] {
		case '\\':
			i++ // the escaped byte, a quote included
		case '"':
			return i + 1
		}
	}
}

// skipJSONValue is the index just past the value that starts at i.
func skipJSONValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipJSONString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipJSONString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
