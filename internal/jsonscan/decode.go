package jsonscan

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Helpers for decoders built on Fields: each takes a member's value bytes
// (already validated) and treats null the way encoding/json does for the
// target type (a zero value, no error); a value of another JSON type is an
// error naming the field.

func typeError(v []byte, field, want string) error {
	kind := "value"
	if len(v) > 0 {
		switch v[0] {
		case '"':
			kind = "string"
		case '{':
			kind = "object"
		case '[':
			kind = "array"
		case 't', 'f':
			kind = "bool"
		default:
			kind = "number"
		}
	}
	return fmt.Errorf("json: cannot unmarshal %s into field %s of type %s", kind, field, want)
}

// IsNull reports whether v is the literal null.
func IsNull(v []byte) bool { return string(v) == "null" }

// String decodes a string member.
func String(v []byte, field string) (string, error) {
	if IsNull(v) {
		return "", nil
	}
	s, ok := Unquote(v)
	if !ok {
		return "", typeError(v, field, "string")
	}
	return s, nil
}

// StringPtr decodes a string member that may be null.
func StringPtr(v []byte, field string) (*string, error) {
	if IsNull(v) {
		return nil, nil
	}
	s, err := String(v, field)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// Bool decodes a boolean member.
func Bool(v []byte, field string) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false", "null":
		return false, nil
	}
	return false, typeError(v, field, "bool")
}

// BoolPtr decodes a boolean member that may be null.
func BoolPtr(v []byte, field string) (*bool, error) {
	if IsNull(v) {
		return nil, nil
	}
	b, err := Bool(v, field)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// Any decodes a member into any Go value with encoding/json (for small,
// free-form members).
func Any(v []byte, dst any) error { return json.Unmarshal(v, dst) }

// Millis reads a timestamp given as Unix milliseconds or, leniently, as an
// RFC 3339 string through parse; anything else is 0.
func Millis(v []byte, parse func(string) int64) int64 {
	if len(v) == 0 {
		return 0
	}
	if v[0] == '"' {
		s, _ := Unquote(v)
		return parse(s)
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0
	}
	return int64(f)
}
