package session

import (
	"encoding/binary"
	"encoding/json"
)

// The loader reads large session files without decoding every entry: one
// pass validates each line as JSON (as strictly as encoding/json does) and
// picks out the few fields the index needs. Message bodies are decoded
// later, only when something asks for them.

// lineMeta is what the index keeps of an entry line.
type lineMeta struct {
	typ        string
	id         string
	parent     string // "" when null or absent
	ts         string
	role       string // message role, for message entries
	hasMessage bool
}

// maxDepth matches encoding/json's nesting limit.
const maxDepth = 10000

type scanner struct {
	b []byte
	i int
}

// scanEntryLine validates one line (without its newline) as a JSON object
// and returns the indexed fields. ok is false for anything encoding/json
// would reject.
func scanEntryLine(b []byte) (m lineMeta, ok bool) {
	s := scanner{b: b}
	s.ws()
	if !s.objectWith(1, func(key []byte) bool {
		switch string(key) {
		case "type":
			v, ok := s.stringValue()
			m.typ = internType(v)
			return ok
		case "id":
			v, ok := s.stringValue()
			m.id = v
			return ok
		case "parentId":
			v, ok := s.stringValue()
			m.parent = v
			return ok
		case "timestamp":
			v, ok := s.stringValue()
			m.ts = v
			return ok
		case "message":
			if s.i < len(s.b) && s.b[s.i] == '{' {
				m.hasMessage = true
				m.role = ""
				return s.objectWith(2, func(k []byte) bool {
					if string(k) == "role" {
						v, ok := s.stringValue()
						m.role = internRole(v)
						return ok
					}
					return s.value(2)
				})
			}
			m.hasMessage = false
			return s.value(1)
		}
		return s.value(1)
	}) {
		return m, false
	}
	s.ws()
	return m, s.i == len(b)
}

// validJSON reports whether b is one valid JSON value.
func validJSON(b []byte) bool {
	s := scanner{b: b}
	if !s.value(0) {
		return false
	}
	s.ws()
	return s.i == len(b)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// objectWith parses an object at s.i; onKey is called with s.i at the
// value (after the colon and spaces) and must consume it.
func (s *scanner) objectWith(depth int, onKey func(key []byte) bool) bool {
	if depth > maxDepth || s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		start := s.i + 1
		s.i++
		esc, ok := s.stringBody()
		if !ok {
			return false
		}
		key := s.b[start : s.i-1]
		if esc {
			key = nil // keys with escapes never name an indexed field
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		if !onKey(key) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// stringValue consumes any value; when it is a string it returns its
// decoded text.
func (s *scanner) stringValue() (string, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", s.value(1)
	}
	start := s.i
	s.i++
	esc, ok := s.stringBody()
	if !ok {
		return "", false
	}
	if !esc {
		return string(s.b[start+1 : s.i-1]), true
	}
	var out string
	if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
		return "", false
	}
	return out, true
}

func (s *scanner) value(depth int) bool {
	if depth > maxDepth {
		return false
	}
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		s.i++
		_, ok := s.stringBody()
		return ok
	case c == '{':
		return s.objectWith(depth+1, func([]byte) bool { return s.value(depth + 1) })
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

func (s *scanner) array(depth int) bool {
	if depth > maxDepth {
		return false
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) number() bool {
	b := s.b
	i := s.i
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
	s.i = i
	return true
}

const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = ones * '"'
	slashs = ones * '\\'
)

// special reports whether any byte of x is a quote, a backslash or a
// control character (the bytes a string scan must stop at).
func special(x uint64) bool {
	q := x ^ quotes
	bs := x ^ slashs
	return ((q-ones)&^q|(bs-ones)&^bs|(x-ones*0x20)&^x)&highs != 0
}

// stringBody consumes a string's content after its opening quote, eight
// bytes at a time where nothing needs attention. It reports whether the
// string had escapes.
func (s *scanner) stringBody() (esc bool, ok bool) {
	b := s.b
	i := s.i
	for {
		for i+8 <= len(b) && !special(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return esc, false
		}
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
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

// internType returns the package constant for known entry types, so that
// the index does not hold one copy of "message" per entry.
func internType(v string) string {
	switch v {
	case TypeMessage:
		return TypeMessage
	case TypeModelChange:
		return TypeModelChange
	case TypeThinkingLevelChange:
		return TypeThinkingLevelChange
	case TypeCompaction:
		return TypeCompaction
	case TypeBranchSummary:
		return TypeBranchSummary
	case TypeCustom:
		return TypeCustom
	case TypeCustomMessage:
		return TypeCustomMessage
	case TypeLabel:
		return TypeLabel
	case TypeSessionInfo:
		return TypeSessionInfo
	}
	return v
}

func internRole(v string) string {
	switch v {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "toolResult":
		return "toolResult"
	case "bashExecution":
		return "bashExecution"
	case "custom":
		return "custom"
	}
	return v
}
