// Package jsonorder keeps JSON objects in the order their keys were
// written, as JavaScript objects do for string keys: a map that remembers
// the order of first insertion, and the members of an encoded object in
// document order. Tool arguments (host/tools/toolargs), a system
// message's sections and tools (host/hooks) and the prompt's sections
// (host/resources) use it.
package jsonorder

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Map is a map that keeps the order of first insertion. The zero value
// is not ready: use New, or set Vals.
type Map[V any] struct {
	Keys []string
	Vals map[string]V
}

// New returns an empty map.
func New[V any]() *Map[V] { return &Map[V]{Vals: map[string]V{}} }

// Get returns the member k.
func (m *Map[V]) Get(k string) (V, bool) {
	v, ok := m.Vals[k]
	return v, ok
}

// Has reports whether the map has the member k.
func (m *Map[V]) Has(k string) bool {
	_, ok := m.Vals[k]
	return ok
}

// Set sets k; a new key goes last, an existing one keeps its place (a
// repeated key in JSON keeps its first place and its last value, as
// JSON.parse).
func (m *Map[V]) Set(k string, v V) {
	if _, ok := m.Vals[k]; !ok {
		m.Keys = append(m.Keys, k)
	}
	m.Vals[k] = v
}

// Delete removes k.
func (m *Map[V]) Delete(k string) {
	if _, ok := m.Vals[k]; !ok {
		return
	}
	delete(m.Vals, k)
	for i, x := range m.Keys {
		if x == k {
			m.Keys = append(m.Keys[:i:i], m.Keys[i+1:]...)
			break
		}
	}
}

// Clone returns a copy (the values themselves are not copied).
func (m *Map[V]) Clone() *Map[V] {
	c := &Map[V]{Keys: append([]string(nil), m.Keys...), Vals: make(map[string]V, len(m.Vals))}
	for k, v := range m.Vals {
		c.Vals[k] = v
	}
	return c
}

// Member is one member of an encoded object.
type Member struct {
	Key   string
	Value json.RawMessage
}

// ErrNotObject is returned by Members for a value that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// Members lists the members of the JSON object raw in document order
// (repeated keys each time they appear). Anything but an object is
// ErrNotObject; broken JSON returns the members read before it with the
// error.
func Members(raw []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ErrNotObject
	}
	var out []Member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out, err
		}
		out = append(out, Member{k, v})
	}
	return out, nil
}
