package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
)

// The protocol's records are built by appending to one byte slice. Using
// encoding/json for nested types would re-validate and re-compact every
// level's output (a 32 MiB prompt is scanned once per nesting level), so
// the conversation types write themselves; only values of unknown type go
// through encoding/json, once.

// Appender is implemented by values that append their own JSON.
type Appender interface {
	AppendJSON(dst []byte) []byte
}

// objWriter appends one JSON object, with keys in the order they are
// written.
type objWriter struct {
	buf []byte
	n   int
}

func (o *objWriter) key(k string) {
	if o.n == 0 {
		o.buf = append(o.buf, '{')
	} else {
		o.buf = append(o.buf, ',')
	}
	o.n++
	o.buf = AppendString(o.buf, k)
	o.buf = append(o.buf, ':')
}

func (o *objWriter) str(k, v string) {
	o.key(k)
	o.buf = AppendString(o.buf, v)
}

func (o *objWriter) optStr(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *objWriter) boolean(k string, v bool) {
	o.key(k)
	o.buf = strconv.AppendBool(o.buf, v)
}

func (o *objWriter) int(k string, v int64) {
	o.key(k)
	o.buf = strconv.AppendInt(o.buf, v, 10)
}

func (o *objWriter) value(k string, v any) {
	o.key(k)
	o.buf = AppendValue(o.buf, v)
}

func (o *objWriter) appender(k string, v Appender) {
	o.key(k)
	o.buf = v.AppendJSON(o.buf)
}

// extra writes fields kept from decoding, in sorted key order.
func (o *objWriter) extra(m map[string]json.RawMessage) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.key(k)
		o.buf = appendRaw(o.buf, m[k])
	}
}

func (o *objWriter) close() []byte {
	if o.n == 0 {
		o.buf = append(o.buf, '{')
	}
	return append(o.buf, '}')
}

// appendRaw appends pre-encoded JSON compacted (raw values read from a file
// may hold line breaks, which must never reach a protocol line); invalid
// JSON becomes null.
func appendRaw(dst []byte, raw []byte) []byte {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return append(dst, "null"...)
	}
	return append(dst, b.Bytes()...)
}

// AppendValue appends the JSON of v. Generic JSON values (maps, slices,
// strings, numbers) and Appenders are written directly; anything else goes
// through encoding/json. A value that cannot be encoded (NaN, a channel)
// is written as null.
func AppendValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return AppendString(dst, x)
	case bool:
		return strconv.AppendBool(dst, x)
	case float64:
		return appendFloat(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case json.RawMessage:
		return appendRaw(dst, x)
	case Appender:
		return x.AppendJSON(dst)
	case map[string]any:
		if x == nil {
			return append(dst, "null"...)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			dst = AppendValue(dst, x[k])
		}
		return append(dst, '}')
	case []any:
		if x == nil {
			return append(dst, "null"...)
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValue(dst, e)
		}
		return append(dst, ']')
	}
	b, err := json.Marshal(v)
	if err != nil {
		return append(dst, "null"...)
	}
	return append(dst, b...)
}

// appendFloat writes a number the way encoding/json does; NaN and
// infinities, which JSON cannot hold, become null.
func appendFloat(dst []byte, f float64) []byte {
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

// appendBlocks appends a block array ([] for none).
func appendBlocks(dst []byte, blocks []ContentBlock) []byte {
	dst = append(dst, '[')
	for i := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = blocks[i].AppendJSON(dst)
	}
	return append(dst, ']')
}

// appendMessages appends a message array ([] for none).
func appendMessages(dst []byte, msgs []Message) []byte {
	dst = append(dst, '[')
	for i := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = msgs[i].AppendJSON(dst)
	}
	return append(dst, ']')
}

// AppendMessages appends a JSON array of messages ([] for none).
func AppendMessages(dst []byte, msgs []Message) []byte { return appendMessages(dst, msgs) }
