// Package jsonw writes JSON objects with keys in insertion order.
package jsonw

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Object writes a JSON object with keys in the order they are added, so
// that records keep the field order clients are used to seeing.
type Object struct {
	buf bytes.Buffer
	n   int
	err error
}

func (w *Object) key(k string) {
	if w.n == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	w.n++
	kb, _ := json.Marshal(k)
	w.buf.Write(kb)
	w.buf.WriteByte(':')
}

// Raw writes a key with pre-encoded JSON.
func (w *Object) Raw(k string, v []byte) {
	w.key(k)
	w.buf.Write(v)
}

// Str writes a string field.
func (w *Object) Str(k, v string) {
	b, _ := json.Marshal(v)
	w.Raw(k, b)
}

// OptStr writes a string field unless it is empty.
func (w *Object) OptStr(k, v string) {
	if v != "" {
		w.Str(k, v)
	}
}

// Val writes any JSON-encodable value.
func (w *Object) Val(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		if w.err == nil {
			w.err = err
		}
		b = []byte("null")
	}
	w.Raw(k, b)
}

// Extra writes unknown fields kept from decoding, in sorted key order.
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
		w.Raw(k, m[k])
	}
}

// Close ends the object and returns its bytes.
func (w *Object) Close() ([]byte, error) {
	if w.n == 0 {
		w.buf.WriteByte('{')
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes(), w.err
}
