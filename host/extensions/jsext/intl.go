package jsext

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/rivo/uniseg"
	"golang.org/x/text/collate"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// The Go half of Intl (js/intl.js, made when a script first uses Intl or
// a toLocale… method): segmentation (github.com/rivo/uniseg), collation
// (golang.org/x/text/collate), plural rules (golang.org/x/text's CLDR
// rules) and time zones. Formatting itself is the root locale's (en-US),
// in JavaScript.

func intlNatives(r *goja.Runtime) map[string]any {
	return map[string]any{
		"intlSegment": func(s goja.Value, granularity string) []any { return segmentBoundaries(s.String(), granularity) },
		// intlCollator returns a collator's compare function (a plain
		// native function: sorting calls it many times).
		"intlCollator": func(sensitivity string, numeric bool, caseFirst string, ignorePunctuation bool) goja.Value {
			c := collatorFor(sensitivity, numeric, caseFirst, ignorePunctuation)
			return r.ToValue(func(call goja.FunctionCall) goja.Value {
				return r.ToValue(c.compare(call.Argument(0).String(), call.Argument(1).String()))
			})
		},
		"intlPlural": func(formatted string, ordinal bool) string { return pluralCategory(formatted, ordinal) },
		"intlZone": func(name string, ms float64) []any {
			loc, canonical, ok := zoneLocation(name)
			if !ok {
				panic(r.NewTypeError("")) // replaced by intl.js's RangeError
			}
			if name == "" {
				canonical = localZone()
			}
			t := time.UnixMilli(int64(ms)).In(loc)
			abbr, off := t.Zone()
			return []any{canonical, off / 60, abbr}
		},
	}
}

// segmentBoundaries splits s into graphemes, words or sentences: the
// UTF-16 offset where each segment ends, and for words whether the
// segment is word-like (has a letter, digit or ideograph), flattened.
func segmentBoundaries(s, granularity string) []any {
	var out []any
	pos := 0
	state := -1
	units := func(seg string) int {
		n := 0
		for _, c := range seg {
			n += utf16.RuneLen(c)
		}
		return n
	}
	for s != "" {
		var seg string
		switch granularity {
		case "word":
			seg, s, state = uniseg.FirstWordInString(s, state)
		case "sentence":
			seg, s, state = uniseg.FirstSentenceInString(s, state)
		default:
			seg, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		}
		pos += units(seg)
		out = append(out, pos)
		if granularity == "word" {
			out = append(out, wordLike(seg))
		}
	}
	return out
}

func wordLike(seg string) bool {
	for _, c := range seg {
		if unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.Is(unicode.Ideographic, c) {
			return true
		}
	}
	return false
}

// collator is one collate.Collator (not safe for concurrent use, hence
// the lock).
type collator struct {
	mu sync.Mutex
	c  *collate.Collator
	// caseless (caseFirst "upper") finds strings that differ only in
	// case, which sort upper case first.
	caseless *collate.Collator
}

func (c *collator) compare(a, b string) int {
	c.mu.Lock()
	n := c.c.CompareString(a, b)
	caseOnly := c.caseless != nil && n != 0 && c.caseless.CompareString(a, b) == 0
	c.mu.Unlock()
	if caseOnly {
		if u := upperFirst(a, b); u != 0 {
			return u
		}
	}
	return n
}

// upperFirst compares strings that collate equal but for case: the one
// with an upper-case letter first sorts first.
func upperFirst(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if unicode.IsUpper(ra) && !unicode.IsUpper(rb) {
				return -1
			}
			if unicode.IsUpper(rb) && !unicode.IsUpper(ra) {
				return 1
			}
			return 0
		}
		a, b = a[na:], b[nb:]
	}
	return 0
}

var collators sync.Map // option key → *collator

func collatorFor(sensitivity string, numeric bool, caseFirst string, ignorePunctuation bool) *collator {
	key := sensitivity + "|" + caseFirst
	if numeric {
		key += "|n"
	}
	if ignorePunctuation {
		key += "|p"
	}
	if c, ok := collators.Load(key); ok {
		return c.(*collator)
	}
	var opts []collate.Option
	switch sensitivity {
	case "base":
		opts = append(opts, collate.IgnoreCase, collate.IgnoreDiacritics)
	case "accent":
		opts = append(opts, collate.IgnoreCase)
	case "case":
		opts = append(opts, collate.IgnoreDiacritics)
	}
	if numeric {
		opts = append(opts, collate.Numeric)
	}
	if ignorePunctuation {
		opts = append(opts, collate.Loose)
	}
	c := &collator{c: collate.New(language.English, opts...)}
	if caseFirst == "upper" {
		c.caseless = collate.New(language.English, append(opts, collate.IgnoreCase)...)
	}
	actual, _ := collators.LoadOrStore(key, c)
	return actual.(*collator)
}

// pluralCategory is the English plural category of a number as it is
// formatted (digits, "." and fraction digits, maybe a sign).
func pluralCategory(formatted string, ordinal bool) string {
	s := strings.TrimLeft(formatted, "-+")
	intPart, frac, _ := strings.Cut(s, ".")
	i := 0
	for _, c := range intPart {
		if c >= '0' && c <= '9' {
			i = (i*10 + int(c-'0')) % 1000000 // the rules look at the last digits only
		}
	}
	v := len(frac)
	f := 0
	for _, c := range frac {
		f = (f*10 + int(c-'0')) % 1000000
	}
	trimmed := strings.TrimRight(frac, "0")
	w, t := len(trimmed), 0
	for _, c := range trimmed {
		t = (t*10 + int(c-'0')) % 1000000
	}
	rules := plural.Cardinal
	if ordinal {
		rules = plural.Ordinal
	}
	switch rules.MatchPlural(language.English, i, v, w, f, t) {
	case plural.Zero:
		return "zero"
	case plural.One:
		return "one"
	case plural.Two:
		return "two"
	case plural.Few:
		return "few"
	case plural.Many:
		return "many"
	}
	return "other"
}

var localZone = sync.OnceValue(func() string {
	name := strings.TrimPrefix(os.Getenv("TZ"), ":")
	if name == "" {
		if target, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
			if _, after, ok := strings.Cut(target, "zoneinfo/"); ok {
				name = after
			}
		}
	}
	if _, canonical, ok := zoneLocation(name); ok && name != "" {
		return canonical
	}
	return "UTC"
})

// zoneLocation finds a time zone by its IANA name (any case; "" is the
// local zone, whose name localZone finds) and its canonical name.
func zoneLocation(name string) (*time.Location, string, bool) {
	if name == "" {
		return time.Local, "", true
	}
	switch strings.ToUpper(name) {
	case "UTC", "ETC/UTC", "ETC/GMT", "GMT", "UCT", "ETC/UCT", "UNIVERSAL", "ETC/UNIVERSAL", "ZULU", "ETC/ZULU", "ETC/GREENWICH", "GREENWICH":
		return time.UTC, "UTC", true
	}
	if strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return nil, "", false
	}
	for _, n := range []string{name, titleZone(name)} {
		if loc, err := time.LoadLocation(n); err == nil {
			return loc, n, true
		}
	}
	return nil, "", false
}

// titleZone capitalises a zone name's words ("america/new_york" →
// "America/New_York").
func titleZone(name string) string {
	b := []byte(strings.ToLower(name))
	up := true
	for i, c := range b {
		if up && 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == '/' || c == '_' || c == '-'
	}
	return string(b)
}
