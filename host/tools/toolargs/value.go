// Package toolargs checks a model's tool-call arguments against the tool's
// JSON Schema the way pi 1.6 does (its pi-schema with coercion): the
// arguments are coerced first ("42" for an integer, a single value for an
// array, null for an omitted optional property), then checked, and a
// failure lists one line per problem with the path the model sees
// (edits.0.oldText) and pi's wording, followed by the arguments received
// in the order the model wrote them. The model reads these messages and
// retries from them, so the wording is part of the behaviour; the cases in
// testdata are recorded from pi 1.6 itself (testdata/record.mjs).
//
// Whether a value is valid is decided by github.com/google/jsonschema-go;
// this package adds what it does not do: the coercion, the explanation of
// a failure in pi's words, and the formats pi checks.
package toolargs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/atomic-go/atomic/internal/jsonorder"
	"github.com/atomic-go/atomic/internal/jsonw"
)

// Object is a JSON object that keeps its keys in document order: the
// order decides the order of the problems reported and of the arguments
// echoed back to the model.
type Object = jsonorder.Map[any]

// maxDepth bounds the nesting of decoded documents (the decoder recurses).
const maxDepth = 1000

// Decode reads one JSON document: objects as *Object, arrays as []any,
// numbers as float64.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: text after the value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("invalid JSON: nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := jsonorder.New[any]()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v) // a repeated key keeps its first place and its last value, as JSON.parse
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("invalid JSON: unexpected %v", t)
	default:
		return t, nil // string, float64, bool, nil
	}
}

// FromGo turns a decoded Go value (maps, slices, numbers of any Go type)
// into this package's form; map keys come in sorted order, as nothing
// remembers the order they were written in.
func FromGo(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := &Object{Keys: make([]string, 0, len(t)), Vals: make(map[string]any, len(t))}
		for k := range t {
			o.Keys = append(o.Keys, k)
		}
		sort.Strings(o.Keys)
		for k, x := range t {
			o.Vals[k] = FromGo(x)
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = FromGo(x)
		}
		return out
	case *Object, string, bool, nil, float64:
		return t
	case json.Number:
		f, _ := t.Float64()
		return f
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case float32:
		return float64(t)
	default:
		// Anything else goes through JSON, as it would on the wire.
		b, err := json.Marshal(t)
		if err != nil {
			return nil
		}
		var x any
		if json.Unmarshal(b, &x) != nil {
			return nil
		}
		return FromGo(x)
	}
}

// ToGo turns a value of this package's form into plain Go values
// (map[string]any).
func ToGo(v any) any {
	switch t := v.(type) {
	case *Object:
		m := make(map[string]any, len(t.Vals))
		for k, x := range t.Vals {
			m[k] = ToGo(x)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = ToGo(x)
		}
		return out
	default:
		return t
	}
}

// Stringify writes v as JavaScript's JSON.stringify does: compact, or
// with indent (JSON.stringify(v, null, 2) for "  ").
func Stringify(v any, indent string) string {
	var b strings.Builder
	stringify(&b, v, indent, "")
	return b.String()
}

func stringify(b *strings.Builder, v any, indent, prefix string) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			b.WriteString("null")
		} else {
			b.WriteString(jsNumber(t))
		}
	case string:
		quote(b, t)
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		inner := prefix + indent
		for i, x := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteString("\n" + inner)
			}
			stringify(b, x, indent, inner)
		}
		if indent != "" {
			b.WriteString("\n" + prefix)
		}
		b.WriteByte(']')
	case *Object:
		if len(t.Keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		inner := prefix + indent
		for i, k := range t.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteString("\n" + inner)
			}
			quote(b, k)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			stringify(b, t.Vals[k], indent, inner)
		}
		if indent != "" {
			b.WriteString("\n" + prefix)
		}
		b.WriteByte('}')
	default:
		stringify(b, FromGo(t), indent, prefix)
	}
}

// quote writes s as a JSON string the way JSON.stringify escapes it.
func quote(b *strings.Builder, s string) {
	b.Write(jsonw.AppendString(nil, s))
}

// jsNumber formats f as JavaScript's String(number): encoding/json's
// number format is ECMAScript's, but for -0.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	return string(jsonw.AppendFloat(nil, f))
}

var jsDecimal = lazyRegexp(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// jsToNumber converts a string as JavaScript's Number(s): surrounding
// white space is ignored, "" is 0, 0x/0o/0b prefixes read integers, and
// anything else that is not a decimal literal is NaN.
func jsToNumber(s string) float64 {
	s = strings.TrimFunc(s, isJSSpace)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			if strings.ContainsAny(s[2:], "+-_") {
				return math.NaN()
			}
			u, err := strconv.ParseUint(s[2:], base, 64)
			if err != nil {
				return math.NaN()
			}
			return float64(u)
		}
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if !jsDecimal.MatchString(s) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

func isJSSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func isFinite(v any) bool {
	f, ok := v.(float64)
	return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
}

func isInteger(v any) bool {
	f, ok := v.(float64)
	return ok && isFinite(f) && f == math.Trunc(f)
}

// typeName names v's type as pi's messages do.
func typeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case *Object:
		return "object"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if isInteger(t) {
			return "integer"
		}
		if !isFinite(t) {
			return jsNumber(t)
		}
		return "number"
	}
	return "undefined"
}

// equal is deep equality of JSON values (objects without regard to key
// order).
func equal(a, b any) bool {
	switch x := a.(type) {
	case *Object:
		y, ok := b.(*Object)
		if !ok || len(x.Vals) != len(y.Vals) {
			return false
		}
		for k, v := range x.Vals {
			w, ok := y.Vals[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// same reports whether b is a (the same object or array, or an equal
// primitive): the passes copy on write, so an unchanged member is the
// same value.
func same(a, b any) bool {
	switch x := a.(type) {
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	default:
		switch b.(type) {
		case *Object, []any:
			return false
		}
		return a == b
	}
}

func codePoints(s string) int { return utf8.RuneCountInString(s) }
