package engine

import "unicode/utf8"

// escaped marks the ASCII bytes appendQuoted escapes.
var escaped = func() (t [utf8.RuneSelf]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range `\"<>&` {
		t[c] = true
	}
	return t
}()

// appendQuoted writes a string as gqlgen writes it: its string marshaler
// escapes quotes, backslashes and control characters, and its transport's
// encoding/json then escapes <, >, &, U+2028 and U+2029 for HTML.
func appendQuoted(buf []byte, s string) []byte {
	// encoding/json escapes in lower case, gqlgen in upper.
	const hex, upperHex = "0123456789abcdef", "0123456789ABCDEF"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
			if c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xF])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		if !escaped[c] {
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '\t':
			buf = append(buf, `\t`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '"':
			buf = append(buf, `\"`...)
		case '<', '>', '&':
			buf = append(buf, `\u00`...)
			buf = append(buf, hex[c>>4], hex[c&0xf])
		default:
			buf = append(buf, `\u00`...)
			buf = append(buf, upperHex[c>>4], upperHex[c&0xf])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
