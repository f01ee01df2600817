package main

// quoteSource is the companion's JSON string writer, for the leaf strings
// and the keys of leafObjects. gqlgen's MarshalString ranges over the runes
// and writes each run of plain bytes, each escape and each quote by a call
// through io.Writer: a dozen calls for a field name and its value. This
// appends to the buffer's free space instead. The escapes are gqlgen's, so
// the bytes are too: only the bytes below 0x20, '\\' and '"' are escaped
// (a byte of invalid UTF-8 is written as it is, as gqlgen's range loop
// writes it), and a byte loop sees them as the rune loop does, since every
// byte of a multi-byte rune is 0x80 or above.
const quoteSource = `
// appendQuoted appends s to dst as gqlgen's MarshalString writes it.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '\\' && c != '"' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '\t':
			dst = append(dst, '\\', 't')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\\', '"':
			dst = append(dst, '\\', c)
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
`
