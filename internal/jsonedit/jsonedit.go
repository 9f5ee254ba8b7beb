// Package jsonedit edits JSON configuration files as text: a change
// replaces, inserts or removes the bytes of one member or element, and
// every other byte of the file (its indentation, its key order, the
// formatting of values it does not touch) stays as the user wrote it.
// New text follows the file's own indentation. Settings (host/packages)
// and mcp.json (host/mcp) are edited through it, under config.UpdateText.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/internal/jsonscan"
)

// Span is a byte range [Start, End) of a document.
type Span struct{ Start, End int }

// Member is one member of an object: its key and the span of its value.
type Member struct {
	Key string
	Val Span
}

// Object is a parsed JSON object of a document: where its braces are and
// its members in order.
type Object struct {
	B           []byte
	Open, Close int // the offsets of '{' and '}'
	Members     []Member
}

// ParseObject parses the object that starts at b[at] (after white space).
// whole requires it to be the entire document.
func ParseObject(b []byte, at int, whole bool) (*Object, error) {
	s := jsonscan.Scanner{B: b, I: at}
	s.WS()
	if s.I >= len(b) || b[s.I] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &Object{B: b, Open: s.I}
	ok := s.Object(1, func(key []byte) bool {
		st := s.I
		if !s.Value(1) {
			return false
		}
		o.Members = append(o.Members, Member{Key: string(key), Val: Span{st, s.I}})
		return true
	})
	if !ok {
		return nil, fmt.Errorf("not valid JSON")
	}
	o.Close = s.I - 1
	if whole {
		s.WS()
		if s.I != len(b) {
			return nil, fmt.Errorf("not valid JSON (text after the object)")
		}
	}
	return o, nil
}

// Find returns the index of the (last, as decoders take it) member key,
// or -1.
func (o *Object) Find(key string) int {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if o.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// Multiline reports whether the object spans several lines.
func (o *Object) Multiline() bool {
	return bytes.Contains(o.B[o.Open:o.Close], []byte("\n"))
}

// Unit guesses one level of indentation from the document: the indent
// of the first member of o relative to the line of its brace (two spaces
// when o has no members on lines of their own).
func (o *Object) Unit() []byte {
	if len(o.Members) > 0 && o.Multiline() {
		in := LineIndent(o.B, o.Members[0].Val.Start)
		outer := LineIndent(o.B, o.Open)
		if len(in) > len(outer) && bytes.HasPrefix(in, outer) {
			return in[len(outer):]
		}
	}
	return []byte("  ")
}

// Splice replaces sp in b with with.
func Splice(b []byte, sp Span, with []byte) []byte {
	out := make([]byte, 0, len(b)+len(with))
	out = append(out, b[:sp.Start]...)
	out = append(out, with...)
	return append(out, b[sp.End:]...)
}

// LineIndent returns the white space that starts the line holding pos.
func LineIndent(b []byte, pos int) []byte {
	start := bytes.LastIndexByte(b[:pos], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return b[start:end]
}

// Quote is s as a JSON string, without HTML escaping.
func Quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// indentValue lays out a compact JSON value for a member whose line is
// indented by ind, one level being unit (multi-line values only when the
// surrounding object is multi-line).
func indentValue(v []byte, ind, unit []byte, multiline bool) []byte {
	var out bytes.Buffer
	if !multiline {
		if err := json.Compact(&out, v); err != nil {
			return v
		}
		return out.Bytes()
	}
	if err := json.Indent(&out, v, string(ind), string(unit)); err != nil {
		return v
	}
	return out.Bytes()
}

// Set sets the member at path (object keys from the top) to the JSON
// value v, creating the objects on the way when they are missing (an
// empty document becomes an object). It reports whether a member was
// replaced. A value on the way that is not an object (null is replaced)
// is an error naming its key.
func Set(doc []byte, path []string, v []byte) ([]byte, bool, error) {
	if len(path) == 0 {
		return nil, false, fmt.Errorf("jsonedit: empty path")
	}
	if !json.Valid(v) {
		return nil, false, fmt.Errorf("jsonedit: the new value is not valid JSON")
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		var buf bytes.Buffer
		_ = json.Indent(&buf, nest(path, v), "", "  ")
		buf.WriteByte('\n')
		return buf.Bytes(), false, nil
	}
	o, err := ParseObject(doc, 0, true)
	if err != nil {
		return nil, false, err
	}
	for depth := 0; ; depth++ {
		key := path[depth]
		i := o.Find(key)
		if i < 0 {
			return insert(o, key, nest(path[depth+1:], v)), false, nil
		}
		val := o.Members[i].Val
		if depth == len(path)-1 {
			ind := LineIndent(doc, val.Start)
			return Splice(doc, val, indentValue(v, ind, o.Unit(), o.Multiline())), true, nil
		}
		switch doc[val.Start] {
		case '{':
			if o, err = ParseObject(doc, val.Start, false); err != nil {
				return nil, false, err
			}
		case 'n': // null: as if absent
			ind := LineIndent(doc, val.Start)
			return Splice(doc, val, indentValue(nest(path[depth+1:], v), ind, o.Unit(), o.Multiline())), false, nil
		default:
			return nil, false, fmt.Errorf("%q is not an object", strings.Join(path[:depth+1], "."))
		}
	}
}

// nest wraps v in objects for the keys of path: {"a": {"b": v}}.
func nest(path []string, v []byte) []byte {
	for i := len(path) - 1; i >= 0; i-- {
		v = []byte("{" + string(Quote(path[i])) + ":" + string(v) + "}")
	}
	return v
}

// insert adds key: v as the last member of o, laid out as its other
// members are.
func insert(o *Object, key string, v []byte) []byte {
	b := o.B
	q := Quote(key)
	if len(o.Members) == 0 {
		outer := LineIndent(b, o.Open)
		ind := append(append([]byte{}, outer...), o.Unit()...)
		text := "{\n" + string(ind) + string(q) + ": " + string(indentValue(v, ind, o.Unit(), true)) + "\n" + string(outer) + "}"
		return Splice(b, Span{o.Open, o.Close + 1}, []byte(text))
	}
	last := o.Members[len(o.Members)-1].Val
	if !o.Multiline() {
		return Splice(b, Span{last.End, last.End}, []byte(", "+string(q)+": "+string(indentValue(v, nil, nil, false))))
	}
	ind := LineIndent(b, last.Start)
	text := ",\n" + string(ind) + string(q) + ": " + string(indentValue(v, ind, o.Unit(), true))
	return Splice(b, Span{last.End, last.End}, []byte(text))
}

// Delete removes the member at path with the separator before or after
// it. It reports whether there was one (a missing member or object on the
// way is no error).
func Delete(doc []byte, path []string) ([]byte, bool, error) {
	if len(path) == 0 || len(bytes.TrimSpace(doc)) == 0 {
		return doc, false, nil
	}
	o, err := ParseObject(doc, 0, true)
	if err != nil {
		return nil, false, err
	}
	for depth := 0; ; depth++ {
		i := o.Find(path[depth])
		if i < 0 {
			return doc, false, nil
		}
		if depth == len(path)-1 {
			return removeMember(o, i), true, nil
		}
		val := o.Members[i].Val
		if doc[val.Start] != '{' {
			return doc, false, nil
		}
		if o, err = ParseObject(doc, val.Start, false); err != nil {
			return nil, false, err
		}
	}
}

// keyStart returns the offset of the opening quote of member i's key.
func (o *Object) keyStart(i int) int {
	// The key is the last string before the colon before the value.
	colon := bytes.LastIndexByte(o.B[:o.Members[i].Val.Start], ':')
	s := jsonscan.Scanner{B: o.B}
	start := o.Open + 1
	if i > 0 {
		start = o.Members[i-1].Val.End
	}
	s.I = start
	for s.I < colon {
		s.WS()
		if o.B[s.I] == ',' {
			s.I++
			continue
		}
		return s.I
	}
	return colon
}

func removeMember(o *Object, i int) []byte {
	b := o.B
	switch {
	case len(o.Members) == 1:
		// Keep the braces as they were laid out, without the member.
		return Splice(b, Span{o.Open + 1, o.Close}, nil)
	case i < len(o.Members)-1:
		return Splice(b, Span{o.keyStart(i), o.keyStart(i + 1)}, nil)
	default:
		return Splice(b, Span{o.Members[i-1].Val.End, o.Members[i].Val.End}, nil)
	}
}
