package packages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/internal/jsonscan"
)

// AddToSettings adds source to the "packages" list of a settings file,
// under the settings lock, or, when an entry for the same package exists
// (same(existingSource) is true), puts source in its place (keeping the
// entry's filters). It reports whether the file changed. Only the list is
// edited: every other byte of the file stays as it was.
func AddToSettings(file, source string, same func(existing string) bool) (changed bool, err error) {
	err = config.UpdateText(file, func(old []byte) ([]byte, error) {
		out, ch, err := addEntry(old, source, same)
		changed = ch
		return out, err
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return changed, err
}

// RemoveFromSettings removes every entry of the "packages" list for which
// same(source) is true. It reports whether one was removed.
func RemoveFromSettings(file string, same func(existing string) bool) (removed bool, err error) {
	err = config.UpdateText(file, func(old []byte) ([]byte, error) {
		out, n, err := removeEntries(old, same)
		removed = n > 0
		if err == nil && n == 0 {
			return nil, errUnchanged
		}
		return out, err
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return removed, err
}

// errUnchanged stops an edit that changes nothing (the file is not
// rewritten).
var errUnchanged = errors.New("unchanged")

type span struct{ start, end int }

type member struct {
	key string
	val span
}

type doc struct {
	b       []byte
	open    int // '{'
	close   int // '}'
	members []member
}

func parseDoc(b []byte) (*doc, error) {
	s := jsonscan.Scanner{B: b}
	s.WS()
	if s.I >= len(b) || b[s.I] != '{' {
		return nil, fmt.Errorf("settings file is not a JSON object; not changing it")
	}
	d := &doc{b: b, open: s.I}
	ok := s.Object(1, func(key []byte) bool {
		st := s.I
		if !s.Value(1) {
			return false
		}
		d.members = append(d.members, member{key: string(key), val: span{st, s.I}})
		return true
	})
	if !ok {
		return nil, fmt.Errorf("settings file is not valid JSON; not changing it")
	}
	d.close = s.I - 1
	s.WS()
	if s.I != len(b) {
		return nil, fmt.Errorf("settings file is not valid JSON (text after the object); not changing it")
	}
	return d, nil
}

// packagesValue returns the span of the (last) "packages" member.
func (d *doc) packagesValue() (span, bool) {
	for i := len(d.members) - 1; i >= 0; i-- {
		if d.members[i].key == "packages" {
			return d.members[i].val, true
		}
	}
	return span{}, false
}

// element is one entry of the list: its span, and the span of its
// source string (the element itself, or the "source" member of an
// object).
type element struct {
	all, src span
	source   string
}

func (d *doc) elements(arr span) ([]element, error) {
	b := d.b
	if b[arr.start] != '[' {
		return nil, fmt.Errorf(`"packages" is not a list; not changing it`)
	}
	s := jsonscan.Scanner{B: b, I: arr.start + 1}
	s.WS()
	var out []element
	if b[s.I] == ']' {
		return nil, nil
	}
	for {
		s.WS()
		el := element{all: span{start: s.I}}
		switch b[s.I] {
		case '"':
			s.Value(2)
			el.src = span{el.all.start, s.I}
		case '{':
			s.Object(2, func(key []byte) bool {
				st := s.I
				if !s.Value(3) {
					return false
				}
				if string(key) == "source" {
					el.src = span{st, s.I}
				}
				return true
			})
		default:
			s.Value(2)
		}
		el.all.end = s.I
		if el.src.end > el.src.start {
			_ = json.Unmarshal(b[el.src.start:el.src.end], &el.source)
		}
		out = append(out, el)
		s.WS()
		if b[s.I] != ',' {
			return out, nil
		}
		s.I++
	}
}

func quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func splice(b []byte, sp span, with []byte) []byte {
	out := make([]byte, 0, len(b)+len(with))
	out = append(out, b[:sp.start]...)
	out = append(out, with...)
	return append(out, b[sp.end:]...)
}

// lineIndent returns the white space that starts the line holding pos.
func lineIndent(b []byte, pos int) []byte {
	start := bytes.LastIndexByte(b[:pos], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return b[start:end]
}

// unit guesses one level of indentation from the first member.
func (d *doc) unit() []byte {
	if len(d.members) > 0 {
		if ind := lineIndent(d.b, d.members[0].val.start); len(ind) > 0 && bytes.Contains(d.b[d.open:d.members[0].val.start], []byte("\n")) {
			return ind
		}
	}
	return []byte("  ")
}

func addEntry(old []byte, source string, same func(string) bool) ([]byte, bool, error) {
	q := quote(source)
	if len(bytes.TrimSpace(old)) == 0 {
		return []byte("{\n  \"packages\": [\n    " + string(q) + "\n  ]\n}\n"), true, nil
	}
	d, err := parseDoc(old)
	if err != nil {
		return nil, false, err
	}
	b := d.b
	arr, ok := d.packagesValue()
	if !ok {
		unit := d.unit()
		if len(d.members) == 0 {
			text := "{\n" + string(unit) + "\"packages\": [\n" + string(unit) + string(unit) + string(q) + "\n" + string(unit) + "]\n}"
			return splice(b, span{d.open, d.close + 1}, []byte(text)), true, nil
		}
		last := d.members[len(d.members)-1].val
		if !bytes.Contains(b[d.open:d.close], []byte("\n")) {
			return splice(b, span{last.end, last.end}, []byte(`, "packages": [`+string(q)+`]`)), true, nil
		}
		ind := lineIndent(b, last.start)
		text := ",\n" + string(ind) + "\"packages\": [\n" + string(ind) + string(unit) + string(q) + "\n" + string(ind) + "]"
		return splice(b, span{last.end, last.end}, []byte(text)), true, nil
	}
	els, err := d.elements(arr)
	if err != nil {
		return nil, false, err
	}
	for _, el := range els {
		if el.source == "" || !same(el.source) {
			continue
		}
		if el.source == source {
			return nil, false, errUnchanged
		}
		return splice(b, el.src, q), true, nil
	}
	if len(els) == 0 {
		if !bytes.Contains(b[d.open:d.close], []byte("\n")) {
			return splice(b, arr, []byte("["+string(q)+"]")), true, nil
		}
		ind := lineIndent(b, arr.start)
		text := "[\n" + string(ind) + string(d.unit()) + string(q) + "\n" + string(ind) + "]"
		return splice(b, arr, []byte(text)), true, nil
	}
	// The separator before the new element repeats the one before the
	// last element (or after "[" for a single one).
	sepStart := arr.start + 1
	if len(els) > 1 {
		prev := els[len(els)-2].all.end
		sepStart = prev + bytes.IndexByte(b[prev:], ',') + 1
	}
	sep := b[sepStart:els[len(els)-1].all.start]
	if len(sep) == 0 {
		sep = []byte(" ")
	}
	lastEnd := els[len(els)-1].all.end
	text := append(append([]byte(","), sep...), q...)
	return splice(b, span{lastEnd, lastEnd}, text), true, nil
}

func removeEntries(old []byte, same func(string) bool) ([]byte, int, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		return old, 0, nil
	}
	removed := 0
	for {
		d, err := parseDoc(old)
		if err != nil {
			return nil, removed, err
		}
		arr, ok := d.packagesValue()
		if !ok {
			return old, removed, nil
		}
		els, err := d.elements(arr)
		if err != nil {
			return nil, removed, err
		}
		idx := -1
		for i, el := range els {
			if el.source != "" && same(el.source) {
				idx = i
				break
			}
		}
		if idx < 0 {
			return old, removed, nil
		}
		removed++
		switch {
		case len(els) == 1:
			old = splice(old, arr, []byte("[]"))
		case idx < len(els)-1:
			old = splice(old, span{els[idx].all.start, els[idx+1].all.start}, nil)
		default:
			old = splice(old, span{els[idx-1].all.end, els[idx].all.end}, nil)
		}
	}
}
