// Package jsonscan validates JSON and walks objects without decoding them,
// as strictly as encoding/json accepts input but several times faster: the
// inside of strings, where most bytes of a session file are, is scanned
// eight bytes at a time. The session loader indexes large files with it and
// decoders use it to find the keys they do not know.
package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth matches encoding/json's nesting limit.
const MaxDepth = 10000

// Scanner reads JSON from B starting at I.
type Scanner struct {
	B []byte
	I int
}

// WS skips white space.
func (s *Scanner) WS() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Object parses an object at s.I; onKey is called with s.I at the value
// (after the colon and spaces) and must consume it (with Value, for
// example). depth is the object's nesting level (1 for a top-level
// object). Keys are passed decoded.
func (s *Scanner) Object(depth int, onKey func(key []byte) bool) bool {
	if depth > MaxDepth || s.I >= len(s.B) || s.B[s.I] != '{' {
		return false
	}
	s.I++
	s.WS()
	if s.I < len(s.B) && s.B[s.I] == '}' {
		s.I++
		return true
	}
	for {
		s.WS()
		if s.I >= len(s.B) || s.B[s.I] != '"' {
			return false
		}
		start := s.I + 1
		s.I++
		esc, ok := s.StringBody()
		if !ok {
			return false
		}
		key := s.B[start : s.I-1]
		if esc || !ascii(key) {
			k, ok := Unquote(s.B[start-1 : s.I])
			if !ok {
				return false
			}
			key = []byte(k)
		}
		s.WS()
		if s.I >= len(s.B) || s.B[s.I] != ':' {
			return false
		}
		s.I++
		s.WS()
		if s.I >= len(s.B) {
			return false
		}
		if !onKey(key) {
			return false
		}
		s.WS()
		if s.I >= len(s.B) {
			return false
		}
		switch s.B[s.I] {
		case ',':
			s.I++
		case '}':
			s.I++
			return true
		default:
			return false
		}
	}
}

// StringValue consumes any value; when it is a string it returns its
// decoded text.
func (s *Scanner) StringValue() (string, bool) {
	if s.I >= len(s.B) || s.B[s.I] != '"' {
		return "", s.Value(1)
	}
	start := s.I
	s.I++
	if _, ok := s.StringBody(); !ok {
		return "", false
	}
	// Unquote also replaces invalid UTF-8, as encoding/json does.
	return Unquote(s.B[start:s.I])
}

func (s *Scanner) Value(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	s.WS()
	if s.I >= len(s.B) {
		return false
	}
	switch c := s.B[s.I]; {
	case c == '"':
		s.I++
		_, ok := s.StringBody()
		return ok
	case c == '{':
		return s.Object(depth+1, func([]byte) bool { return s.Value(depth + 1) })
	case c == '[':
		return s.array(depth + 1)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

func (s *Scanner) array(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	s.I++ // '['
	s.WS()
	if s.I < len(s.B) && s.B[s.I] == ']' {
		s.I++
		return true
	}
	for {
		if !s.Value(depth) {
			return false
		}
		s.WS()
		if s.I >= len(s.B) {
			return false
		}
		switch s.B[s.I] {
		case ',':
			s.I++
		case ']':
			s.I++
			return true
		default:
			return false
		}
	}
}

func (s *Scanner) literal(lit string) bool {
	if len(s.B)-s.I < len(lit) || string(s.B[s.I:s.I+len(lit)]) != lit {
		return false
	}
	s.I += len(lit)
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *Scanner) number() bool {
	b := s.B
	i := s.I
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return false
	}
	if b[i] == '0' {
		i++
	} else if b[i] >= '1' && b[i] <= '9' {
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	} else {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	s.I = i
	return true
}

const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = ones * '"'
	slashs = ones * '\\'
)

// special marks the bytes of x (little endian) that are a quote, a
// backslash or a control character: the bytes a string scan must stop at.
// The lowest marked byte is exact (later marks may be spurious).
func special(x uint64) uint64 {
	q := x ^ quotes
	bs := x ^ slashs
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

// StringBody consumes a string's content after its opening quote, eight
// bytes at a time where nothing needs attention. It reports whether the
// string had escapes.
func (s *Scanner) StringBody() (esc bool, ok bool) {
	b := s.B
	i := s.I
	for {
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return esc, false
		}
		c := b[i]
		switch {
		case c == '"':
			s.I = i + 1
			return esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return esc, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return esc, false
				}
				i += 6
			default:
				return esc, false
			}
		case c < 0x20:
			return esc, false
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Valid reports whether b is one valid JSON value.
func Valid(b []byte) bool {
	s := Scanner{B: b}
	if !s.Value(0) {
		return false
	}
	s.WS()
	return s.I == len(b)
}

// Fields calls fn for each member of the JSON object b, in order, with the
// decoded key and the value's bytes. It reports
// whether b is a valid JSON object; fn may stop early by returning false,
// which makes Fields return false.
func Fields(b []byte, fn func(key, value []byte) bool) bool {
	s := Scanner{B: b}
	s.WS()
	ok := s.Object(1, func(key []byte) bool {
		start := s.I
		if !s.Value(1) {
			return false
		}
		return fn(key, s.B[start:s.I])
	})
	if !ok {
		return false
	}
	s.WS()
	return s.I == len(b)
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Unquote decodes a valid JSON string literal (with its quotes) the way
// encoding/json does, including its replacement of invalid UTF-8 and of
// unpaired surrogates by U+FFFD. ok is false when b is not a string.
func Unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	body := b[1 : len(b)-1]
	i := 0
	for i < len(body) {
		c := body[i]
		if c == '\\' || c == '"' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	if i == len(body) {
		return string(body), true
	}
	out := make([]byte, i, len(body))
	copy(out, body[:i])
	for i < len(body) {
		c := body[i]
		switch {
		case c == '\\':
			if i+1 >= len(body) {
				return "", false
			}
			switch body[i+1] {
			case '"', '\\', '/':
				out = append(out, body[i+1])
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				r, ok := hex4(body[i+2:])
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := unicode.ReplacementChar
					if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
						if lo, ok := hex4(body[i+2:]); ok {
							if dec := utf16.DecodeRune(r, lo); dec != unicode.ReplacementChar {
								r2 = dec
								i += 6
							}
						}
					}
					r = r2
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", false
			}
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, unicode.ReplacementChar)
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
		}
	}
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// Elements calls fn for each element of the JSON array b with the
// element's bytes. It reports whether b is a valid array (and fn never
// returned false).
func Elements(b []byte, fn func(value []byte) bool) bool {
	s := Scanner{B: b}
	s.WS()
	if s.I >= len(b) || b[s.I] != '[' {
		return false
	}
	s.I++
	s.WS()
	if s.I < len(b) && b[s.I] == ']' {
		s.I++
		s.WS()
		return s.I == len(b)
	}
	for {
		s.WS()
		start := s.I
		if !s.Value(1) || !fn(b[start:s.I]) {
			return false
		}
		s.WS()
		if s.I >= len(b) {
			return false
		}
		switch b[s.I] {
		case ',':
			s.I++
		case ']':
			s.I++
			s.WS()
			return s.I == len(b)
		default:
			return false
		}
	}
}
