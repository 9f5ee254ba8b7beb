// Package jsonw is the one JSON writer of the agent: protocol records,
// session entries and events are appended to byte slices with keys in the
// order they are written, without encoding/json's reflection and without
// re-validating nested output. Values of unknown type go through
// encoding/json once. Every string written is valid UTF-8 (invalid bytes
// become U+FFFD, as encoding/json writes them); HTML characters are not
// escaped (clients and pi's own files do not escape them either).
package jsonw

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Appender is implemented by values that append their own JSON.
type Appender interface {
	AppendJSON(dst []byte) []byte
}

// Object appends one JSON object to a byte slice, with keys in the order
// they are written. The zero value starts a new slice; Append continues
// one.
type Object struct {
	buf []byte
	n   int
	err error // the first value that could not be encoded (Err)
}

// Append returns an Object that appends to dst.
func Append(dst []byte) Object { return Object{buf: dst} }

// key starts the field k.
func (w *Object) key(k string) {
	if w.n == 0 {
		w.buf = append(w.buf, '{')
	} else {
		w.buf = append(w.buf, ',')
	}
	w.n++
	w.buf = AppendString(w.buf, k)
	w.buf = append(w.buf, ':')
}

// Str writes a string field.
func (w *Object) Str(k, v string) {
	w.key(k)
	w.buf = AppendString(w.buf, v)
}

// OptStr writes a string field unless it is empty.
func (w *Object) OptStr(k, v string) {
	if v != "" {
		w.Str(k, v)
	}
}

// Bool writes a boolean field.
func (w *Object) Bool(k string, v bool) {
	w.key(k)
	w.buf = strconv.AppendBool(w.buf, v)
}

// Int writes an integer field.
func (w *Object) Int(k string, v int64) {
	w.key(k)
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// Val writes any value (see AppendValue); a value that cannot be encoded
// is written as null and reported by Err.
func (w *Object) Val(k string, v any) {
	w.key(k)
	var err error
	w.buf, err = appendValue(w.buf, v)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("field %q: %w", k, err)
	}
}

// Appender writes a value that appends its own JSON.
func (w *Object) Appender(k string, v Appender) {
	w.key(k)
	w.buf = v.AppendJSON(w.buf)
}

// Field writes the key k and lets f append its value (for appending
// functions of concrete types, which then need no interface value).
func (w *Object) Field(k string, f func(dst []byte) []byte) {
	w.key(k)
	w.buf = f(w.buf)
}

// Raw writes pre-encoded JSON that the caller knows to be one compact
// value (a literal, or bytes this package wrote); bytes that are not
// UTF-8 become U+FFFD. Use Val with a json.RawMessage for JSON from
// elsewhere: it is compacted and checked.
func (w *Object) Raw(k string, v []byte) {
	w.key(k)
	w.buf = append(w.buf, ValidUTF8(v)...)
}

// Extra writes fields kept from decoding, in sorted key order, each
// compacted (see AppendRaw).
func (w *Object) Extra(m map[string]json.RawMessage) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.key(k)
		w.buf = AppendRaw(w.buf, m[k])
	}
}

// Close ends the object and returns the slice with it appended.
func (w *Object) Close() []byte {
	if w.n == 0 {
		w.buf = append(w.buf, '{')
	}
	return append(w.buf, '}')
}

// Err reports the first value given to Val that could not be encoded
// (it was written as null): callers that store what they write (session
// files) refuse the record instead.
func (w *Object) Err() error { return w.err }

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// control characters are escaped (\b, \f, \n, \r, \t by name, as both
// encoding/json and JavaScript's JSON.stringify write them); HTML characters and U+2028/U+2029 are
// written as they are (valid JSON; encoding/json escapes them for HTML
// and JavaScript embedding).
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendRaw appends pre-encoded JSON compacted (raw values read from a
// file may hold line breaks, which must never reach a protocol line);
// invalid JSON becomes null, bytes that are not UTF-8 become U+FFFD.
func AppendRaw(dst []byte, raw []byte) []byte {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return append(dst, "null"...)
	}
	return append(dst, ValidUTF8(b.Bytes())...)
}

// AppendValue appends the JSON of v. Generic JSON values (maps, slices,
// strings, numbers, json.RawMessage) and Appenders are written directly;
// anything else goes through encoding/json. A value that cannot be
// encoded (NaN, a channel, invalid raw JSON) is written as null.
func AppendValue(dst []byte, v any) []byte {
	dst, _ = appendValue(dst, v)
	return dst
}

// errNotJSON is the cause reported for raw bytes that are not JSON.
var errNotJSON = errors.New("raw value is not valid JSON")

// appendValue is AppendValue that also says when something was written as
// null because it could not be encoded.
func appendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(dst, "null"...), &json.UnsupportedValueError{Str: strconv.FormatFloat(x, 'g', -1, 64)}
		}
		return AppendFloat(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case json.RawMessage:
		if len(x) == 0 || !json.Valid(x) {
			return append(dst, "null"...), errNotJSON
		}
		return AppendRaw(dst, x), nil
	case Appender:
		return x.AppendJSON(dst), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var first error
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendValue(dst, x[k]); err != nil && first == nil {
				first = err
			}
		}
		return append(dst, '}'), first
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		var first error
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e); err != nil && first == nil {
				first = err
			}
		}
		return append(dst, ']'), first
	}
	b, err := json.Marshal(v)
	if err != nil {
		return append(dst, "null"...), err
	}
	return append(dst, ValidUTF8(b)...), nil
}

// AppendFloat appends a number the way encoding/json writes it; NaN and
// infinities, which JSON cannot hold, become null.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	fmtByte := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmtByte = 'e'
	}
	dst = strconv.AppendFloat(dst, f, fmtByte, -1, 64)
	if fmtByte == 'e' {
		// 1e-07 -> 1e-7, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
