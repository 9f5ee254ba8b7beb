package jsonw

import "unicode/utf8"

// ValidUTF8 returns b with every byte that is not part of a valid UTF-8
// sequence replaced by the escape \ufffd (U+FFFD), the way encoding/json
// writes such a byte in a string. b is returned as it is (not copied) when
// it is valid UTF-8, which is the common case and costs one scan.
//
// It is meant for JSON that is passed through without being re-encoded
// (raw ids, raw values kept from decoding, whole output lines): in valid
// JSON, bytes of 0x80 and above occur only inside strings, so the result
// is the same JSON value with its invalid bytes replaced (RFC 8259 §8.1
// requires UTF-8). Every valid UTF-8 input is returned unchanged.
func ValidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	start := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, b[start:i]...)
			out = append(out, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(out, b[start:]...)
}
