package session

import "github.com/atomic-go/atomic/internal/jsonscan"

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

// scanEntryLine validates one line (without its newline) as a JSON object
// and returns the indexed fields. ok is false for anything encoding/json
// would reject.
func scanEntryLine(b []byte) (m lineMeta, ok bool) {
	s := jsonscan.Scanner{B: b}
	s.WS()
	if !s.Object(1, func(key []byte) bool {
		switch string(key) {
		case "type":
			v, ok := s.StringValue()
			m.typ = internType(v)
			return ok
		case "id":
			v, ok := s.StringValue()
			m.id = v
			return ok
		case "parentId":
			v, ok := s.StringValue()
			m.parent = v
			return ok
		case "timestamp":
			v, ok := s.StringValue()
			m.ts = v
			return ok
		case "message":
			if s.I < len(s.B) && s.B[s.I] == '{' {
				m.hasMessage = true
				m.role = ""
				return s.Object(2, func(k []byte) bool {
					if string(k) == "role" {
						v, ok := s.StringValue()
						m.role = internRole(v)
						return ok
					}
					return s.Value(2)
				})
			}
			m.hasMessage = false
			return s.Value(1)
		}
		return s.Value(1)
	}) {
		return m, false
	}
	s.WS()
	return m, s.I == len(b)
}

// validJSON reports whether b is one valid JSON value.
func validJSON(b []byte) bool { return jsonscan.Valid(b) }

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
