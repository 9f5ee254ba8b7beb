package jsonorder

import (
	"errors"
	"slices"
	"testing"
)

func TestMapKeepsInsertionOrder(t *testing.T) {
	m := New[int]()
	m.Set("b", 1)
	m.Set("a", 2)
	m.Set("b", 3) // keeps its place
	c := m.Clone()
	m.Delete("b")
	m.Delete("missing")
	if !slices.Equal(m.Keys, []string{"a"}) || m.Has("b") {
		t.Fatalf("after delete: %v %v", m.Keys, m.Vals)
	}
	if v, _ := c.Get("b"); !slices.Equal(c.Keys, []string{"b", "a"}) || v != 3 {
		t.Fatalf("clone: %v %v", c.Keys, c.Vals)
	}
}

func TestMembers(t *testing.T) {
	ms, err := Members([]byte(`{"z": 1, "a": {"x": [1]}, "z": "again"}`))
	if err != nil || len(ms) != 3 || ms[0].Key != "z" || ms[1].Key != "a" || string(ms[1].Value) != `{"x": [1]}` || string(ms[2].Value) != `"again"` {
		t.Fatalf("%v %v", ms, err)
	}
	for _, in := range []string{`[1]`, `"s"`, ``, `null`} {
		if _, err := Members([]byte(in)); !errors.Is(err, ErrNotObject) {
			t.Errorf("%q: %v", in, err)
		}
	}
	if ms, err := Members([]byte(`{"a": 1, "b": `)); err == nil || len(ms) != 1 {
		t.Errorf("broken: %v %v", ms, err)
	}
}
