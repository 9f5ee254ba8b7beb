package tools

import (
	"strings"
	"unicode/utf8"
)

// maxPendingEscape bounds how many bytes of an unfinished escape sequence
// are held back waiting for the next chunk.
const maxPendingEscape = 4096

// outputSanitizer cleans command output for the model: it removes ANSI
// escape sequences (CSI, OSC and other ESC sequences), drops control
// characters other than tab, newline and carriage return, and replaces
// invalid UTF-8 with U+FFFD. It works on a stream of chunks, holding back an
// escape sequence or character split across chunk boundaries.
type outputSanitizer struct {
	pending []byte
}

// Write cleans a chunk and returns the text that is complete so far.
func (s *outputSanitizer) Write(p []byte) string {
	data := p
	if len(s.pending) > 0 {
		data = append(s.pending, p...)
		s.pending = nil
	}
	out, rest := sanitizeBytes(data, false)
	if len(rest) > 0 {
		s.pending = append([]byte(nil), rest...)
	}
	return out
}

// Flush returns whatever was held back, cleaned as final input.
func (s *outputSanitizer) Flush() string {
	if len(s.pending) == 0 {
		return ""
	}
	out, _ := sanitizeBytes(s.pending, true)
	s.pending = nil
	return out
}

// SanitizeOutput cleans complete command output: ANSI escape sequences and
// control characters other than tab, newline and carriage return are
// removed, and invalid UTF-8 is replaced with U+FFFD.
func SanitizeOutput(s string) string {
	out, _ := sanitizeBytes([]byte(s), true)
	return out
}

// sanitizeBytes cleans data. Unless final, an incomplete trailing escape
// sequence or UTF-8 character is returned in rest instead of being cleaned.
func sanitizeBytes(data []byte, final bool) (out string, rest []byte) {
	var b strings.Builder
	b.Grow(len(data))
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == 0x1b:
			// A sequence counts only when it ends within maxPendingEscape
			// bytes, so that the result does not depend on how the output
			// was split into chunks.
			window := data[i:min(len(data), i+maxPendingEscape)]
			n, complete := escapeLen(window)
			if !complete {
				if !final && len(window) < maxPendingEscape {
					return b.String(), data[i:]
				}
				i++ // drop the lone ESC and go on with the rest
				continue
			}
			i += n
		case c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				if !final && !utf8.FullRune(data[i:]) {
					return b.String(), data[i:]
				}
				b.WriteRune(utf8.RuneError)
				i++
				continue
			}
			if r >= 0x80 && r <= 0x9f { // C1 controls
				i += size
				continue
			}
			b.Write(data[i : i+size])
			i += size
		}
	}
	return b.String(), nil
}

// escapeLen returns the length of the escape sequence at the start of p
// (p[0] is ESC) and whether it is complete.
func escapeLen(p []byte) (int, bool) {
	if len(p) < 2 {
		return 0, false
	}
	switch c := p[1]; {
	case c == '[': // CSI: parameters, intermediates, final byte
		j := 2
		for j < len(p) && p[j] >= 0x30 && p[j] <= 0x3f {
			j++
		}
		for j < len(p) && p[j] >= 0x20 && p[j] <= 0x2f {
			j++
		}
		if j >= len(p) {
			return 0, false
		}
		if p[j] >= 0x40 && p[j] <= 0x7e {
			return j + 1, true
		}
		return j, true // malformed: drop what was read
	case c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X':
		// String sequences end with BEL or ESC \.
		for j := 2; j < len(p); j++ {
			switch p[j] {
			case 0x07:
				return j + 1, true
			case 0x1b:
				if j+1 >= len(p) {
					return 0, false
				}
				if p[j+1] == '\\' {
					return j + 2, true
				}
			}
		}
		return 0, false
	case c >= 0x20 && c <= 0x2f: // nF: intermediates then a final byte
		j := 2
		for j < len(p) && p[j] >= 0x20 && p[j] <= 0x2f {
			j++
		}
		if j >= len(p) {
			return 0, false
		}
		return j + 1, true
	case c >= 0x30 && c <= 0x7e:
		return 2, true
	default:
		return 1, true
	}
}
