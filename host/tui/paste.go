package tui

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A paste longer than pasteMaxLines lines or pasteMaxChars characters is
// shown in the editor as a marker ("[paste #1 +42 lines]", "[paste #2
// 1500 chars]", as pi) and sent as the text it stands for.
const (
	pasteMaxLines = 10
	pasteMaxChars = 1000
)

// pasteMarker matches a marker; compiled on first use.
var pasteMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]`)
})

// pastes holds the large pastes of the editor's current text.
type pastes struct {
	next  int
	texts map[string]string // by number
}

// cleanPaste normalises pasted text: line ends to LF, tabs to four spaces,
// other control characters dropped.
func cleanPaste(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r >= 0x20 && r != 0x7f {
			return r
		}
		return -1
	}, s)
}

// add returns what goes into the editor for a paste: the text itself,
// or a marker standing for it when it is large.
func (p *pastes) add(text string) string {
	lines := strings.Count(text, "\n") + 1
	chars := len([]rune(text))
	if lines <= pasteMaxLines && chars <= pasteMaxChars {
		return text
	}
	p.next++
	if p.texts == nil {
		p.texts = map[string]string{}
	}
	id := fmt.Sprint(p.next)
	p.texts[id] = text
	if lines > pasteMaxLines {
		return fmt.Sprintf("[paste #%s +%d lines]", id, lines)
	}
	return fmt.Sprintf("[paste #%s %d chars]", id, chars)
}

// expand replaces the markers of this editor's pastes with their text
// (a marker typed by hand, or of a paste since cleared, stays as it is).
func (p *pastes) expand(s string) string {
	if len(p.texts) == 0 {
		return s
	}
	return pasteMarker().ReplaceAllStringFunc(s, func(mk string) string {
		id := pasteMarker().FindStringSubmatch(mk)[1]
		if t, ok := p.texts[id]; ok {
			return t
		}
		return mk
	})
}

// reset forgets the pastes (the editor was sent or cleared).
func (p *pastes) reset() { *p = pastes{} }

// markerAround finds a marker of this editor's pastes that ends at col
// (before true) or starts at it in line, for deleting it whole; ok false
// when there is none.
func (p *pastes) markerAround(line []rune, col int, before bool) (from, to int, ok bool) {
	if len(p.texts) == 0 {
		return 0, 0, false
	}
	s := string(line)
	for _, loc := range pasteMarker().FindAllStringSubmatchIndex(s, -1) {
		if _, known := p.texts[s[loc[2]:loc[3]]]; !known {
			continue
		}
		f, t := len([]rune(s[:loc[0]])), len([]rune(s[:loc[1]]))
		if before && t == col || !before && f == col {
			return f, t, true
		}
	}
	return 0, 0, false
}

// broken names a paste whose marker was edited into something else (its
// "[paste #n" is there, the whole marker not), whose text would be lost
// if the editor were sent; "" when there is none.
func (p *pastes) broken(s string) string {
	whole := map[string]bool{}
	for _, m := range pasteMarker().FindAllStringSubmatch(s, -1) {
		whole[m[1]] = true
	}
	for id := range p.texts {
		if !whole[id] && strings.Contains(s, "[paste #"+id) {
			return "#" + id
		}
	}
	return ""
}
