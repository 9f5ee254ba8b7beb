package packages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/internal/jsonedit"
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

// element is one entry of the list: its span, and the span of its
// source string (the element itself, or the "source" member of an
// object).
type element struct {
	all, src jsonedit.Span
	source   string
}

func elements(b []byte, arr jsonedit.Span) ([]element, error) {
	if b[arr.Start] != '[' {
		return nil, fmt.Errorf(`"packages" is not a list; not changing it`)
	}
	s := jsonscan.Scanner{B: b, I: arr.Start + 1}
	s.WS()
	var out []element
	if b[s.I] == ']' {
		return nil, nil
	}
	for {
		s.WS()
		el := element{all: jsonedit.Span{Start: s.I}}
		switch b[s.I] {
		case '"':
			s.Value(2)
			el.src = jsonedit.Span{Start: el.all.Start, End: s.I}
		case '{':
			s.Object(2, func(key []byte) bool {
				st := s.I
				if !s.Value(3) {
					return false
				}
				if string(key) == "source" {
					el.src = jsonedit.Span{Start: st, End: s.I}
				}
				return true
			})
		default:
			s.Value(2)
		}
		el.all.End = s.I
		if el.src.End > el.src.Start {
			_ = json.Unmarshal(b[el.src.Start:el.src.End], &el.source)
		}
		out = append(out, el)
		s.WS()
		if b[s.I] != ',' {
			return out, nil
		}
		s.I++
	}
}

// parseSettings parses a settings file for an edit, and finds its
// "packages" list.
func parseSettings(b []byte) (*jsonedit.Object, jsonedit.Span, bool, error) {
	o, err := jsonedit.ParseObject(b, 0, true)
	if err != nil {
		return nil, jsonedit.Span{}, false, fmt.Errorf("settings file: %v; not changing it", err)
	}
	i := o.Find("packages")
	if i < 0 {
		return o, jsonedit.Span{}, false, nil
	}
	return o, o.Members[i].Val, true, nil
}

func addEntry(old []byte, source string, same func(string) bool) ([]byte, bool, error) {
	q := jsonedit.Quote(source)
	if len(bytes.TrimSpace(old)) == 0 {
		return []byte("{\n  \"packages\": [\n    " + string(q) + "\n  ]\n}\n"), true, nil
	}
	o, arr, ok, err := parseSettings(old)
	if err != nil {
		return nil, false, err
	}
	b := o.B
	if !ok {
		out, _, err := jsonedit.Set(b, []string{"packages"}, []byte("["+string(q)+"]"))
		return out, err == nil, err
	}
	els, err := elements(b, arr)
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
		return jsonedit.Splice(b, el.src, q), true, nil
	}
	if len(els) == 0 {
		if !o.Multiline() {
			return jsonedit.Splice(b, arr, []byte("["+string(q)+"]")), true, nil
		}
		ind := jsonedit.LineIndent(b, arr.Start)
		text := "[\n" + string(ind) + string(o.Unit()) + string(q) + "\n" + string(ind) + "]"
		return jsonedit.Splice(b, arr, []byte(text)), true, nil
	}
	// The separator before the new element repeats the one before the
	// last element (or after "[" for a single one).
	sepStart := arr.Start + 1
	if len(els) > 1 {
		prev := els[len(els)-2].all.End
		sepStart = prev + bytes.IndexByte(b[prev:], ',') + 1
	}
	sep := b[sepStart:els[len(els)-1].all.Start]
	if len(sep) == 0 {
		sep = []byte(" ")
	}
	lastEnd := els[len(els)-1].all.End
	text := append(append([]byte(","), sep...), q...)
	return jsonedit.Splice(b, jsonedit.Span{Start: lastEnd, End: lastEnd}, text), true, nil
}

func removeEntries(old []byte, same func(string) bool) ([]byte, int, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		return old, 0, nil
	}
	removed := 0
	for {
		_, arr, ok, err := parseSettings(old)
		if err != nil {
			return nil, removed, err
		}
		if !ok {
			return old, removed, nil
		}
		els, err := elements(old, arr)
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
			old = jsonedit.Splice(old, arr, []byte("[]"))
		case idx < len(els)-1:
			old = jsonedit.Splice(old, jsonedit.Span{Start: els[idx].all.Start, End: els[idx+1].all.Start}, nil)
		default:
			old = jsonedit.Splice(old, jsonedit.Span{Start: els[idx-1].all.End, End: els[idx].all.End}, nil)
		}
	}
}
